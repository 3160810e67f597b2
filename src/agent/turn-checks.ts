/**
 * Checks made when the model gives a final answer, before the turn ends. Two of them can send
 * the model back to work with a note of the agent's own (a user message starting "[System: "),
 * stored in the history like any message so the transcript matches what the model saw:
 * - a reply that only announces the next step, with no tool call, is asked to take that step;
 * - code edited this turn with no passing check since is asked to be checked (see
 *   verification-ledger.ts for what counts).
 */
import { tmpdir } from "node:os";
import type { ApiMode, Message, ToolCall } from "../llm/types.js";
import { selectsModel } from "./prompt-guidance.js";
import { ADHOC_CHECK_PREFIX, type CheckStatus, VerificationLedger } from "./verification-ledger.js";

/** `agent.intent_ack_continuation`, `agent.verify_on_stop`, `max_verify_nudges`, `verify_guidance`. */
export interface TurnCheckSettings {
  /** auto (the Responses API only), true, false, or model-name fragments. */
  intentAckContinuation: "auto" | boolean | readonly string[];
  /** auto (on outside chat platforms), true, false; HERMES_VERIFY_ON_STOP wins. */
  verifyOnStop: "auto" | boolean;
  maxVerifyNudges: number;
  verifyGuidance: boolean;
}

/** How the agent's own notes to the model start. */
export const TURN_NOTE_PREFIX = "[System: ";
export const MAX_INTENT_NUDGES = 2;
const DEFAULT_MAX_VERIFY_NUDGES = 3;
const MAX_ANNOUNCEMENT_CHARS = 600;
const MAX_LISTED_PATHS = 8;
const MAX_NAMED_COMMANDS = 3;
/** Surfaces where someone works with the agent directly; elsewhere (chats, cron) `auto` is off. */
const VERIFY_PLATFORMS = new Set(["", "cli", "tui", "acp", "desktop", "api_server", "webhook", "local"]);

export const INTENT_NUDGE = `${TURN_NOTE_PREFIX}Your reply said what you would do next, but made no tool call. Take that step now with tool calls. If the work is already done, give your final answer instead.]`;

/** A message the turn checks added: a user message holding only the agent's note. */
export function isTurnNote(message: Pick<Message, "role" | "content">): boolean {
  return (
    message.role === "user" &&
    typeof message.content === "string" &&
    message.content.startsWith(TURN_NOTE_PREFIX) &&
    message.content.endsWith("]")
  );
}

/** Index of the last message the user wrote (the checks' notes skipped), or -1. */
export function lastUserMessageIndex(messages: readonly Pick<Message, "role" | "content">[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user" && !isTurnNote(message)) return i;
  }
  return -1;
}

/**
 * The history split after the turn's own user message: notes the checks added come after it,
 * so what rides with the user's message (recalled memory) stays where it was.
 */
export function splitAtTurnNotes(history: readonly Message[]): [Message[], Message[]] {
  let end = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== "user") continue;
    if (!isTurnNote(message)) break;
    end = i;
  }
  return [history.slice(0, end), history.slice(end)];
}

const LEAD_IN = String.raw`(?:(?:ok(?:ay)?|alright|all right|great|sure|got it|right|now|next|first|then|so|understood)\b[,:!.]?\s*)*`;
const SUBJECT =
  "(?:i(?:'ll| will| shall| am going to|'m going to| am about to|'m about to)|(?:i'm |i am )?going to|let me|let's|now let me)";
const FILLER = String.raw`(?:(?:now|next|first|then|quickly|also|just|go ahead and|start by|begin by|proceed to|try to)\s+)*`;
const ACTION_VERBS =
  "check|run|rerun|re-run|look|have a look|take a look|read|open|inspect|examine|review|search|grep|find|locate|list|" +
  "explore|investigate|dig|debug|trace|test|verify|validate|confirm|update|fix|patch|edit|modify|change|rewrite|write|" +
  "create|add|remove|delete|rename|move|refactor|implement|apply|install|set up|configure|build|compile|start|" +
  "restart|launch|execute|fetch|download|pull|clone|query|call|scan|analy[sz]e|compare|gather|collect|try|make|" +
  "generate|convert|format|lint|commit|push|deploy|clean up|upgrade|load|view|print|count|measure|profile|diagnose|" +
  "reproduce|see|figure out|work on|kick off|do";
const ANNOUNCEMENT = new RegExp(`^${LEAD_IN}${SUBJECT}\\s+${FILLER}(?:${ACTION_VERBS})\\b`, "i");
/** A reply that reports finished work. */
const COMPLETED = new RegExp(
  [
    String.raw`\bi(?:'ve| have)?\s+(?:(?:now|just|also|already|successfully)\s+)*(?:updated|fixed|added|created|changed|modified|wrote|written|implemented|removed|deleted|ran|refactored|renamed|moved|installed|built|applied|completed|finished|resolved|verified|tested|configured|made)\b`,
    String.raw`\b(?:has|have) been\b`,
    String.raw`\bsuccessfully\b`,
    String.raw`\ball (?:set|done)\b`,
    String.raw`^\W*done\b`,
  ].join("|"),
  "im",
);

/** The last sentence of a text, without list markers or emphasis around it. */
function lastSentence(text: string): string {
  const pieces = text.split(/(?<=[.!…:])\s+|\n+/).filter((piece) => piece.trim() !== "");
  return (pieces.at(-1) ?? "")
    .trim()
    .replace(/^(?:[-*+>]\s+|\d+[.)]\s+)/, "")
    .replace(/^[*_]+/, "");
}

/**
 * Whether a reply only announces an action the model is about to take ("Let me run the
 * tests."), with that announcement at its end. Conservative: a question, a report of finished
 * work, code, or a long reply is never a bare announcement.
 */
export function isIntentAnnouncement(reply: string): boolean {
  const text = reply.replace(/[\u2018\u2019]/g, "'").trim();
  if (!text || text.length > MAX_ANNOUNCEMENT_CHARS) return false;
  if (text.includes("?") || text.includes("```") || COMPLETED.test(text)) return false;
  return ANNOUNCEMENT.test(lastSentence(text));
}

/** Whether the intent check applies to this model and API. */
export function intentCheckApplies(
  setting: TurnCheckSettings["intentAckContinuation"],
  model: string | undefined,
  apiMode: ApiMode | undefined,
): boolean {
  return selectsModel(setting, model, () => apiMode === "codex_responses");
}

/** Whether the verify check is on: HERMES_VERIFY_ON_STOP wins, then the setting; auto is off in chats. */
export function verifyCheckOn(
  setting: TurnCheckSettings["verifyOnStop"],
  platform: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const forced = env.HERMES_VERIFY_ON_STOP?.trim().toLowerCase();
  if (forced !== undefined && forced !== "") return !["0", "false", "no", "off"].includes(forced);
  if (typeof setting === "boolean") return setting;
  return VERIFY_PLATFORMS.has((platform ?? "").trim().toLowerCase());
}

export interface VerifyNoteInput {
  paths: readonly string[];
  status: Exclude<CheckStatus, { kind: "passed" }>;
  verifyCommands: readonly string[];
  guidance: boolean;
  tempDir?: string;
}

/** The note asking the model to check the code it changed. */
export function verifyNote(input: VerifyNoteInput): string {
  const listed = input.paths.slice(0, MAX_LISTED_PATHS).join(", ");
  const more = input.paths.length > MAX_LISTED_PATHS ? `, … and ${input.paths.length - MAX_LISTED_PATHS} more` : "";
  const lines = [
    `${TURN_NOTE_PREFIX}You changed code this turn and no check has passed since the last change.`,
    `Changed: ${listed}${more}.`,
  ];
  const { status } = input;
  if (status.kind === "none") {
    lines.push("No check has run since then.");
  } else {
    const { command, exitCode, tail } = status.check;
    lines.push(`The last check, \`${command}\`, failed (exit code ${exitCode}).`);
    if (tail.trim()) lines.push("The end of its output:", "```", tail.trimEnd(), "```");
  }
  const commands = input.verifyCommands.slice(0, MAX_NAMED_COMMANDS);
  if (commands.length > 0) {
    const named = commands.map((command) => `\`${command}\``).join(", ");
    lines.push(
      `Run the project's checks now (${named}), read any failures, fix them, and end with a short summary of what passed.`,
    );
  } else {
    const dir = input.tempDir ?? tmpdir();
    lines.push(
      `This workspace names no check command: write a short throwaway script in ${dir} whose name starts with ${ADHOC_CHECK_PREFIX}, run it, delete it, and call it an ad-hoc check in your summary.`,
    );
  }
  lines.push("If the work cannot be checked here, say what prevents it instead of calling it verified.");
  if (input.guidance) {
    lines.push(
      "For visual or UI work, a build or a screenshot can be the check rather than the whole test suite.",
      "In your final summary, say what you checked, and leave no stray debug code behind.",
    );
  }
  return `${lines.join("\n")}]`;
}

/** A note for the model and the status line that announces it. */
export interface TurnNote {
  message: string;
  status: string;
}

/** One turn's checks: fed every tool batch, asked at each final answer whether the turn may end. */
export class TurnChecks {
  private readonly ledger: VerificationLedger | undefined;
  private intentNudges = 0;
  private verifyNudges = 0;

  constructor(
    private readonly settings: TurnCheckSettings | undefined,
    private readonly facts: { platform?: string | undefined; home?: string | undefined; env?: NodeJS.ProcessEnv },
  ) {
    if (settings) this.ledger = new VerificationLedger(facts.home);
  }

  /** A batch of tool calls and their result messages, in call order. */
  record(calls: readonly ToolCall[], results: readonly Message[], cwd: string): void {
    if (!this.ledger) return;
    for (const [i, call] of calls.entries()) {
      const content = results[i]?.content;
      if (typeof content !== "string") continue;
      let args: unknown;
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        continue;
      }
      if (args && typeof args === "object") {
        this.ledger.record(call.function.name, args as Record<string, unknown>, content, cwd);
      }
    }
  }

  /** The note to send instead of ending the turn with this answer, if any. */
  afterFinalAnswer(text: string, route: { model: string; apiMode: ApiMode | undefined }): TurnNote | undefined {
    const settings = this.settings;
    if (!settings || !this.ledger) return undefined;
    if (
      this.intentNudges < MAX_INTENT_NUDGES &&
      intentCheckApplies(settings.intentAckContinuation, route.model, route.apiMode) &&
      isIntentAnnouncement(text)
    ) {
      this.intentNudges++;
      return { message: INTENT_NUDGE, status: "the reply only announced its next step; asking the model to take it" };
    }
    const max = Number.isFinite(settings.maxVerifyNudges)
      ? Math.max(0, Math.floor(settings.maxVerifyNudges))
      : DEFAULT_MAX_VERIFY_NUDGES;
    if (this.verifyNudges >= max || !verifyCheckOn(settings.verifyOnStop, this.facts.platform, this.facts.env)) {
      return undefined;
    }
    const edits = this.ledger.codeEdits();
    const status = this.ledger.status();
    if (edits.length === 0 || status.kind === "passed") return undefined;
    this.verifyNudges++;
    const message = verifyNote({
      paths: edits.map((edit) => edit.shown),
      status,
      verifyCommands: this.ledger.verifyCommands(),
      guidance: settings.verifyGuidance,
    });
    return { message, status: "code changed without a passing check; asking the model to verify its edits" };
  }
}
