/**
 * The learning loop of a runtime: after a substantial or corrected task, a background review by
 * the auxiliary model (`auxiliary.review`) proposes memory entries and skill changes, applied
 * (`learning.mode: auto`, announced in one line) or queued for the user (`review`). Reviews run
 * one after another, after the answer was delivered; they never run for cron jobs or subagents
 * and never fail a turn. Every change is applied through the `memory` and `skill_manage` tools,
 * with their validation and threat scan, and lands in the change ledger.
 */
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import type { FinishedTurn, TurnLearner } from "../../agent/options.js";
import type { HermesConfig } from "../../state/config-schema.js";
import type { LearningLedger } from "../../state/learning-ledger.js";
import { type Proposal, ProposalQueue } from "../../state/learning-proposals.js";
import type { ToolContext, ToolRegistry } from "../../tools/registry.js";
import { discoverSkills } from "../../tools/skills/discovery.js";
import { recordSkillUse } from "../../tools/skills/usage.js";
import type { ChangeActor } from "../../util/change-ledger.js";
import { describeProposal, isCorrection, parseReview, type ReviewProposal, reviewMessages } from "./review.js";

export interface LearnerOptions {
  home: string;
  config: HermesConfig;
  registry: ToolRegistry;
  ledger: LearningLedger;
  auxiliary: () => Promise<AuxiliaryClient>;
  notice: (message: string) => void;
  now?: () => number;
}

export interface AppliedProposal {
  proposal: ReviewProposal;
  ok: boolean;
  message: string;
}

/** Platforms whose turns are never reviewed: nobody is there to see or undo what was learnt. */
const UNREVIEWED_PLATFORMS = new Set(["cron"]);
const REVIEW_MAX_TOKENS = 4000;
const APPLY_TIMEOUT_MS = 30_000;

export interface ApplyDeps {
  home: string;
  registry: ToolRegistry;
  ledger: LearningLedger;
  /** For the curator's merges: the backup taken before one is applied (`curator.backup`). */
  curatorBackup?: { enabled: boolean; keep: number };
}

/**
 * Applies one proposal through the `memory` or `skill_manage` tool, so it passes their checks
 * and is recorded in the ledger as `actor`'s change.
 */
export async function applyProposal(
  deps: ApplyDeps,
  proposal: { kind: "memory" | "skill" | "skill_merge"; args: object },
  turn: Pick<FinishedTurn, "sessionId" | "platform" | "memory">,
  actor: ChangeActor,
): Promise<AppliedProposal> {
  const described = proposal as ReviewProposal;
  if (proposal.kind === "skill_merge") {
    const { applyMerge, mergeFromArgs } = await import("../../tools/skills/skill-merge.js");
    const merge = mergeFromArgs(proposal.args);
    if (!merge) return { proposal: described, ok: false, message: "the queued merge is malformed" };
    const result = await applyMerge(deps.home, merge, {
      actor,
      sessionId: turn.sessionId,
      ledger: deps.ledger,
      ...(deps.curatorBackup ? { backup: deps.curatorBackup } : {}),
    });
    return { proposal: described, ok: result.ok, message: result.ok ? "done" : result.message };
  }
  const tool = deps.registry.get(proposal.kind === "memory" ? "memory" : "skill_manage");
  if (!tool) return { proposal: described, ok: false, message: "the tool that applies it is not available" };
  const ctx: ToolContext = {
    cwd: deps.home,
    signal: AbortSignal.timeout(APPLY_TIMEOUT_MS),
    sessionId: turn.sessionId,
    platform: turn.platform,
    interactive: false,
    services: { memory: turn.memory, changeLedger: deps.ledger, changeActor: actor },
  };
  try {
    const raw = await tool.handler(tool.parameters.parse(proposal.args), ctx);
    const result = JSON.parse(raw) as { success?: boolean; error?: string };
    if (result.success) return { proposal: described, ok: true, message: "done" };
    return { proposal: described, ok: false, message: result.error ?? "refused" };
  } catch (error) {
    return { proposal: described, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

export class Learner implements TurnLearner {
  readonly queue: ProposalQueue;
  private line: Promise<void> = Promise.resolve();

  constructor(private readonly options: LearnerOptions) {
    this.queue = new ProposalQueue(options.home);
  }

  get mode(): HermesConfig["learning"]["mode"] {
    return this.options.config.learning.mode;
  }

  /** Called by the agent when a turn completed; schedules a review when the turn deserves one. */
  turnFinished(turn: FinishedTurn): void {
    this.countSkillUses(turn);
    // Nobody there (a one-shot run, an API request): nobody to see what was learnt, and the
    // process should not wait for a review before it exits.
    if (this.mode === "off" || !turn.interactive || UNREVIEWED_PLATFORMS.has(turn.platform)) return;
    const substantial = turn.toolCalls >= this.options.config.learning.review_min_tool_calls;
    if (!substantial && !isCorrection(turn.userMessage)) return;
    this.schedule(async () => {
      const outcome = await this.review(turn);
      if (outcome) turn.announce(outcome);
    });
  }

  /** Resolves when every scheduled review has finished (tests, and a clean shutdown). */
  idle(): Promise<void> {
    return this.line;
  }

  /**
   * `/learn [what]`: review the session now, whatever the thresholds, and apply what it
   * proposes (the user asked for it). Returns what happened, for the user.
   */
  async learnNow(turn: FinishedTurn, focus: string): Promise<string> {
    const proposals = await this.propose(turn, focus);
    if (proposals.length === 0) return "Nothing worth keeping was found in this session.";
    const applied = await this.applyAll(proposals, turn, "learn");
    return applied
      .map((result) => `${result.ok ? "✓" : "✗"} ${describeProposal(result.proposal)}: ${result.message}`)
      .join("\n");
  }

  /** Applies proposals through the tools; each result says whether it passed their checks. */
  async applyAll(
    proposals: readonly ReviewProposal[],
    turn: Pick<FinishedTurn, "sessionId" | "platform" | "memory">,
    actor: ChangeActor,
  ): Promise<AppliedProposal[]> {
    const results: AppliedProposal[] = [];
    for (const proposal of proposals) results.push(await applyProposal(this.options, proposal, turn, actor));
    return results;
  }

  /** A completed task that loaded a skill is a successful use of it (the curator keeps such skills). */
  private countSkillUses(turn: FinishedTurn): void {
    const names = new Set<string>();
    for (const message of turn.messages) {
      for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
        if (call.function.name !== "skill_view") continue;
        try {
          const name = (JSON.parse(call.function.arguments) as { name?: unknown }).name;
          if (typeof name === "string" && name.trim()) names.add(name.trim());
        } catch {
          // A call with broken arguments loaded nothing.
        }
      }
    }
    for (const name of names) {
      try {
        recordSkillUse(this.options.home, name, "use", (this.options.now ?? Date.now)());
      } catch (error) {
        this.options.notice(`could not count a use of skill ${name}: ${(error as Error).message}`);
      }
    }
  }

  private userSkills(): string[] {
    const catalog = discoverSkills({ home: this.options.home });
    return catalog.skills.filter((skill) => skill.source === "user").map((skill) => skill.name);
  }

  private schedule(task: () => Promise<void>): void {
    // The review starts on a later turn of the event loop, after the caller has the answer.
    const later = () => new Promise<void>((resolve) => setImmediate(resolve));
    this.line = this.line
      .then(later)
      .then(task)
      .catch((error: unknown) => {
        this.options.notice(`learning review failed: ${error instanceof Error ? error.message : String(error)}`);
      });
  }

  private async propose(turn: FinishedTurn, focus?: string): Promise<ReviewProposal[]> {
    const client = await this.options.auxiliary();
    const memory = turn.memory ? [...turn.memory.entries("memory"), ...turn.memory.entries("user")] : [];
    const answer = await client.complete(
      "review",
      reviewMessages({
        userMessage: turn.userMessage,
        finalResponse: turn.finalResponse,
        messages: turn.messages,
        skills: this.userSkills(),
        memory,
        ...(focus ? { focus } : {}),
      }),
      { maxTokens: REVIEW_MAX_TOKENS },
    );
    return parseReview(answer).proposals;
  }

  /** One review: apply or queue what it proposes; the one-line announcement, if any. */
  private async review(turn: FinishedTurn): Promise<string | undefined> {
    const proposals = await this.propose(turn);
    if (proposals.length === 0) return undefined;
    // What the user wants to approve first (memory.write_approval, skills.write_approval) waits
    // in the queue even when the rest is applied: accepting it there is the approval.
    const held = this.mode === "review" ? proposals : proposals.filter((proposal) => this.needsApproval(proposal));
    const lines: string[] = [];
    if (held.length > 0) {
      const queued = this.enqueue(held, turn);
      lines.push(
        `Learning: ${queued.length} proposal(s) queued (${queued.map((p) => p.summary).join("; ")}); /learn or hermes learn list to decide.`,
      );
    }
    const toApply = proposals.filter((proposal) => !held.includes(proposal));
    const applied = await this.applyAll(toApply, turn, "review");
    const done = applied.filter((result) => result.ok);
    const refused = applied.filter((result) => !result.ok);
    const parts = done.map((result) => describeProposal(result.proposal));
    if (refused.length) parts.push(`${refused.length} refused by the checks`);
    if (parts.length > 0) {
      lines.unshift(`Learned: ${parts.join("; ")} (hermes learn log shows it, hermes learn undo ID reverts it).`);
    }
    return lines.length > 0 ? lines.join("\n") : undefined;
  }

  private needsApproval(proposal: ReviewProposal): boolean {
    const { memory, skills } = this.options.config;
    return proposal.kind === "memory" ? memory.write_approval : skills.write_approval;
  }

  private enqueue(proposals: ReviewProposal[], turn: FinishedTurn): Proposal[] {
    const now = (this.options.now ?? Date.now)();
    return this.queue.add(
      proposals.map(
        (proposal): Omit<Proposal, "id"> => ({
          createdAt: now,
          sessionId: turn.sessionId,
          kind: proposal.kind,
          args: proposal.args,
          summary: describeProposal(proposal),
          reason: "",
          ...(turn.memoryDir ? { memoryDir: turn.memoryDir } : {}),
        }),
      ),
    );
  }
}
