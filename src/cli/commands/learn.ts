/**
 * `hermes learn log|show|undo|list|apply|reject`: what the agent changed in its own memory and
 * skills (the change ledger) and what the background review proposes (learning.mode: review).
 */
import type { Command } from "commander";
import type { LedgerEntry } from "../../state/learning-ledger.js";
import type { Proposal } from "../../state/learning-proposals.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function context() {
  const [{ hermesHome, hermesPaths }, { loadConfig }, { LearningLedger }, { ProposalQueue }] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../../state/learning-ledger.js"),
    import("../../state/learning-proposals.js"),
  ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  return { home, config, paths: hermesPaths(home), ledger: new LearningLedger(home), queue: new ProposalQueue(home) };
}

function ids(raw: string[], all: boolean | undefined, what: string): number[] | undefined {
  if (all) return undefined;
  if (raw.length === 0) throw new UsageError(`name the ${what} by id (hermes learn list shows them), or pass --all`);
  return raw.map((id) => {
    const n = Number(id);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`"${id}" is not an id (a positive whole number)`);
    return n;
  });
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16);
}

export function ledgerLine(entry: LedgerEntry): string {
  const session = entry.sessionId ? `  [${entry.sessionId}]` : "";
  return `${String(entry.id).padStart(4)}  ${stamp(entry.at)}  ${entry.actor.padEnd(7)}  ${entry.summary}${session}`;
}

export function proposalLine(proposal: Proposal): string {
  return `${String(proposal.id).padStart(4)}  ${stamp(proposal.createdAt)}  ${proposal.summary}`;
}

/** Applies queued proposals through the same tools the agent uses; one line per proposal. */
export async function applyQueued(proposals: readonly Proposal[]): Promise<string[]> {
  const { home, config, paths } = await context();
  const [
    { ToolRegistry },
    { registerMemoryTools },
    { registerSkillsTools },
    { MemoryStore },
    learning,
    { LearningLedger },
  ] = await Promise.all([
    import("../../tools/registry.js"),
    import("../../tools/builtin/memory.js"),
    import("../../tools/skills/tools.js"),
    import("../../state/memory-store.js"),
    import("../../runtime/learning/learner.js"),
    import("../../state/learning-ledger.js"),
  ]);
  const registry = new ToolRegistry();
  registerMemoryTools(registry);
  registerSkillsTools(registry, { home });
  const { resolveCuratorSettings } = await import("../../state/curator-settings.js");
  const deps = {
    home,
    registry,
    ledger: new LearningLedger(home),
    curatorBackup: resolveCuratorSettings(config).backup,
  };
  const lines: string[] = [];
  for (const proposal of proposals) {
    const memory = new MemoryStore({
      dir: proposal.memoryDir ?? paths.memoriesDir,
      memoryCharLimit: config.memory.memory_char_limit,
      userCharLimit: config.memory.user_char_limit,
    });
    const target = { sessionId: proposal.sessionId, platform: "cli", memory };
    const result = await learning.applyProposal(deps, proposal, target, "review");
    lines.push(
      `${result.ok ? "applied" : "refused"} ${proposal.id}: ${proposal.summary}${result.ok ? "" : ` (${result.message})`}`,
    );
  }
  return lines;
}

export function registerLearnCommands(program: Command, io: CommandIo = processIo): Command {
  const learn = program
    .command("learn")
    .description(
      "what the agent learnt (memory and skills): the change log, undo, and queued proposals (docs/learning.md)",
    );

  learn
    .command("log", { isDefault: true })
    .description("every change the agent made to its memory and skills, newest first")
    .option("-n, --limit <n>", "how many", "30")
    .option("--diff", "show each change's diff")
    .action(async (opts: { limit: string; diff?: boolean }) => {
      const { ledger } = await context();
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError(`--limit must be a positive whole number, not "${opts.limit}"`);
      const entries = ledger.list({ limit });
      if (entries.length === 0) return io.out("No changes recorded yet.");
      io.out(
        entries
          .map((entry) => (opts.diff ? `${ledgerLine(entry)}\n${ledger.diff(entry)}` : ledgerLine(entry)))
          .join("\n"),
      );
    });

  learn
    .command("show <id>")
    .description("one change with its diff")
    .action(async (id: string) => {
      const { ledger } = await context();
      const [n] = ids([id], false, "change") ?? [];
      const entry = ledger.get(n!);
      if (!entry) throw new UsageError(`no change with id ${id} (hermes learn log lists them)`);
      io.out(`${ledgerLine(entry)}\n${ledger.diff(entry)}`);
    });

  learn
    .command("undo <id>")
    .description("put the files of a change back as they were before it")
    .option("--force", "also when the files changed again since")
    .action(async (id: string, opts: { force?: boolean }) => {
      const { ledger } = await context();
      const [n] = ids([id], false, "change") ?? [];
      const { LedgerError } = await import("../../state/learning-ledger.js");
      try {
        const result = ledger.undo(n!, { force: Boolean(opts.force) });
        if (!result.undo && result.conflicts.length > 0) {
          throw new UsageError(
            `change ${n} was not undone: ${result.conflicts.join(", ")} changed again since; --force puts the old contents back anyway`,
          );
        }
        io.out(`Undid change ${n}: ${result.entry.summary}.`);
      } catch (error) {
        if (error instanceof LedgerError) throw new UsageError(error.message);
        throw error;
      }
    });

  learn
    .command("list")
    .description("proposals the review queued (learning.mode: review)")
    .action(async () => {
      const { queue } = await context();
      const proposals = queue.list();
      io.out(proposals.length ? proposals.map(proposalLine).join("\n") : "No proposals waiting.");
    });

  learn
    .command("apply [ids...]")
    .description("apply queued proposals (through the same checks as the agent's own changes)")
    .option("--all", "every queued proposal")
    .action(async (raw: string[], opts: { all?: boolean }) => {
      const { queue } = await context();
      const taken = queue.take(ids(raw, opts.all, "proposals"));
      if (taken.length === 0) throw new UsageError("no such proposal (hermes learn list shows them)");
      io.out((await applyQueued(taken)).join("\n"));
    });

  learn
    .command("reject [ids...]")
    .description("drop queued proposals")
    .option("--all", "every queued proposal")
    .action(async (raw: string[], opts: { all?: boolean }) => {
      const { queue } = await context();
      const taken = queue.take(ids(raw, opts.all, "proposals"));
      if (taken.length === 0) throw new UsageError("no such proposal (hermes learn list shows them)");
      io.out(`Rejected ${taken.length} proposal(s).`);
    });
  return learn;
}
