/**
 * `hermes sessions list|show|search|export|import|delete|rename|stats|prune|repair`: browsing and
 * maintaining the session store. SQLite loads only when one of these commands runs.
 */
import { type Command, Option } from "commander";
import type { SessionStore, StoredMessage, StoreRepairReport } from "../../state/session-store.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";
import { confirm } from "./confirm.js";

async function withStore<T>(fn: (store: SessionStore) => Promise<T>): Promise<T> {
  const { openSessionStore } = await import("../../state/session-store.js");
  const { hermesHome } = await import("../../state/paths.js");
  const { storeLocation } = await import("../../state/store-target.js");
  const store = await openSessionStore(await storeLocation(hermesHome()));
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} needs a whole number (got "${value}")`);
  return n;
}

export function formatTime(ms: number | null): string {
  if (ms === null) return "-";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function messageText(message: StoredMessage): string {
  if (message.content === null) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((p) => (p.type === "text" ? p.text : `[image]`)).join("\n");
}

function renderMessage(message: StoredMessage): string {
  const lines: string[] = [];
  const label = message.role === "tool" ? `tool ${message.name ?? ""}`.trim() : message.role;
  const text = messageText(message);
  if (message.reasoning) lines.push(`[${label} reasoning] ${oneLine(message.reasoning, 200)}`);
  if (text || !message.tool_calls) lines.push(`[${label}] ${message.role === "tool" ? oneLine(text, 300) : text}`);
  for (const call of message.tool_calls ?? []) {
    lines.push(`[${label}] → ${call.function.name}(${oneLine(call.function.arguments, 200)})`);
  }
  return lines.join("\n");
}

/** A known cost as money; unknown costs as "unknown", never as $0. */
export function describeCost(cost: number | null, unpriced: number, sessions: number): string {
  if (cost === null) return sessions === 0 ? "$0" : "unknown (no price known for the models used)";
  const money = cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
  return unpriced > 0 ? `${money} for ${sessions - unpriced} of ${sessions} sessions (the rest unknown)` : money;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function describeRepair(report: StoreRepairReport, location: string): string[] {
  const lines = [`Checked ${location}`];
  if (report.problemsBefore.length === 0) lines.push("integrity check: ok");
  else {
    lines.push(`integrity check: ${plural(report.problemsBefore.length, "problem")} found`);
    for (const problem of report.problemsBefore) lines.push(`  ${problem}`);
    if (report.indexesRebuilt) lines.push("indexes: rebuilt from their tables");
  }
  lines.push(
    report.searchIndexStale
      ? `search index: out of step with the messages; rebuilt (${plural(report.messagesIndexed, "message")})`
      : `search index: consistent; rebuilt (${plural(report.messagesIndexed, "message")})`,
  );
  lines.push(
    report.messageCountsFixed > 0
      ? `message counts: ${plural(report.messageCountsFixed, "session")} had a wrong count; recounted`
      : "message counts: all right",
  );
  if (report.problemsAfter.length === 0) lines.push("The store is healthy.");
  return lines;
}

export function registerSessionsCommands(program: Command, io: CommandIo = processIo): Command {
  const sessions = program.command("sessions").description("browse, search and maintain saved sessions");

  sessions
    .command("list")
    .description("recent sessions, newest first")
    .option("-n, --limit <n>", "how many to show", "20")
    .option("--source <source>", "only sessions from this source (cli, telegram, cron, ...)")
    .option("--json", "print JSON")
    .action(async (opts: { limit: string; source?: string; json?: boolean }) => {
      const limit = positiveInt(opts.limit, "--limit");
      const rows = await withStore((store) =>
        store.listSessions({ limit, ...(opts.source ? { source: opts.source } : {}) }),
      );
      if (opts.json) return io.out(JSON.stringify(rows, null, 2));
      if (rows.length === 0) return io.out("No sessions yet.");
      for (const s of rows) {
        const title = oneLine(s.title ?? s.preview ?? "(untitled)", 50);
        io.out(
          `${s.id}  ${formatTime(s.lastActive)}  ${s.source.padEnd(8)} ${String(s.messageCount).padStart(4)} msgs  ${title}`,
        );
      }
    });

  sessions
    .command("show <id>")
    .description("print a session's details and messages")
    .option("--json", "print the session as export JSON")
    .action(async (id: string, opts: { json?: boolean }) => {
      const exported = await withStore((store) => store.exportSession(id));
      if (opts.json) return io.out(JSON.stringify(exported, null, 2));
      const s = exported.session;
      io.out(`Session ${s.id}${s.title ? ` — ${s.title}` : ""}`);
      io.out(
        `source ${s.source}, model ${s.model ?? "-"}, started ${formatTime(s.startedAt)}, last active ${formatTime(s.lastActive)}`,
      );
      io.out(
        `${s.messageCount} messages, ${s.totalTokens} tokens (prompt ${s.promptTokens}, completion ${s.completionTokens}, cache read ${s.cacheReadTokens}, cache write ${s.cacheWriteTokens})`,
      );
      if (s.parentSessionId) io.out(`continues ${s.parentSessionId}`);
      io.out("");
      let archivedAbove = false;
      for (const message of exported.messages) {
        if (archivedAbove && !message.archived) io.out("── compacted here: the messages above are archived ──");
        archivedAbove = Boolean(message.archived);
        io.out(renderMessage(message));
      }
    });

  sessions
    .command("search <query...>")
    .description("full-text search over every saved message")
    .option("-n, --limit <n>", "how many hits", "20")
    .option("--source <source>", "only sessions from this source")
    .addOption(
      new Option("--role <role>", "only messages with this role").choices(["user", "assistant", "tool", "system"]),
    )
    .option("--json", "print JSON")
    .action(
      async (
        words: string[],
        opts: { limit: string; source?: string; role?: StoredMessage["role"]; json?: boolean },
      ) => {
        const limit = positiveInt(opts.limit, "--limit");
        const hits = await withStore((store) =>
          store.search(words.join(" "), {
            limit,
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.role ? { role: opts.role } : {}),
          }),
        );
        if (opts.json) return io.out(JSON.stringify(hits, null, 2));
        if (hits.length === 0) return io.out("No matches.");
        for (const hit of hits) {
          io.out(`${hit.sessionId}  ${formatTime(hit.createdAt)}  [${hit.role}]  ${oneLine(hit.snippet, 160)}`);
        }
      },
    );

  sessions
    .command("export <id>")
    .description("write a session as JSON (to stdout, or --out FILE)")
    .option("-o, --out <file>", "file to write")
    .action(async (id: string, opts: { out?: string }) => {
      const exported = await withStore((store) => store.exportSession(id));
      // An export leaves the store: keys pasted into a conversation are masked on the way out.
      const { sessionExportJson } = await import("../../state/session-snapshots.js");
      const json = sessionExportJson(exported);
      if (!opts.out) return io.out(json);
      const { atomicWriteFile } = await import("../../util/atomic-write.js");
      atomicWriteFile(opts.out, json, { mode: 0o600 });
      io.out(`Exported ${exported.messages.length} messages to ${opts.out}`);
    });

  sessions
    .command("import <file>")
    .description("import a session exported with `hermes sessions export`")
    .option("--replace", "replace a session with the same id")
    .action(async (file: string, opts: { replace?: boolean }) => {
      const { readFileSync } = await import("node:fs");
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(file, "utf8"));
      } catch (error) {
        throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      const record = await withStore((store) => store.importSession(data, { replace: Boolean(opts.replace) }));
      io.out(`Imported session ${record.id} (${record.messageCount} messages)`);
    });

  sessions
    .command("delete <id>")
    .description("delete a session and its messages (asks first; --yes to skip)")
    .option("-y, --yes", "delete without asking")
    .action(async (id: string, opts: { yes?: boolean }) => {
      const session = await withStore((store) => store.getSession(id));
      if (!session) throw new UsageError(`no session with id "${id}"`);
      if (!opts.yes) {
        const what = `session ${id}${session.title ? ` ("${session.title}")` : ""}, ${session.messageCount} messages`;
        if (!process.stdin.isTTY) {
          throw new UsageError(`not deleting ${what} without confirmation: pass --yes`);
        }
        if (!(await confirm(`Delete ${what}? This cannot be undone. [y/N] `))) {
          io.out("Nothing deleted.");
          return;
        }
      }
      await withStore((store) => store.deleteSession(id));
      io.out(`Deleted session ${id}`);
    });

  sessions
    .command("rename <id> <title...>")
    .description("set a session's title")
    .action(async (id: string, title: string[]) => {
      await withStore((store) => store.rename(id, title.join(" ")));
      io.out(`Renamed ${id} to "${title.join(" ")}"`);
    });

  sessions
    .command("stats")
    .description("counts, tokens and size of the session store")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const { stats, location } = await withStore(async (store) => ({
        stats: await store.stats(),
        location: store.location,
      }));
      if (opts.json) return io.out(JSON.stringify({ location, ...stats }, null, 2));
      io.out(`store     ${location}`);
      io.out(`sessions  ${stats.sessions}`);
      io.out(`messages  ${stats.messages}`);
      io.out(`tokens    ${stats.totalTokens}`);
      io.out(`cost      ${describeCost(stats.estimatedCost, stats.unpricedSessions, stats.sessions)}`);
      io.out(`size      ${((stats.bytes ?? 0) / 1024 / 1024).toFixed(2)} MiB`);
      io.out(`activity  ${formatTime(stats.oldestActivity)} … ${formatTime(stats.newestActivity)}`);
      for (const [source, n] of Object.entries(stats.bySource)) io.out(`  ${source.padEnd(10)} ${n}`);
    });

  sessions
    .command("prune")
    .description("delete sessions with no activity for DAYS days, and their messages (asks first; --yes to skip)")
    .requiredOption("--older-than <days>", "age in days")
    .option("--source <source>", "only sessions from this source")
    .option("-y, --yes", "delete without asking")
    .action(async (opts: { olderThan: string; source?: string; yes?: boolean }) => {
      const days = Number(opts.olderThan);
      if (!Number.isFinite(days) || days < 0)
        throw new UsageError(`--older-than needs a number of days (got "${opts.olderThan}")`);
      const options = { olderThanDays: days, now: Date.now(), ...(opts.source ? { source: opts.source } : {}) };
      await withStore(async (store) => {
        const pending = await store.pruneSessions({ ...options, dryRun: true });
        if (pending.sessions > 0 && !opts.yes) {
          const what = `${plural(pending.sessions, "session")} (${plural(pending.messages, "message")}) idle for more than ${days} days`;
          if (!process.stdin.isTTY) throw new UsageError(`not deleting ${what} without confirmation: pass --yes`);
          if (!(await confirm(`Delete ${what}? This cannot be undone. [y/N] `))) {
            io.out("Nothing deleted.");
            return;
          }
        }
        const removed = await store.pruneSessions(options);
        io.out(
          `Pruned ${plural(removed.sessions, "session")} older than ${days} days (${plural(removed.messages, "message")})`,
        );
      });
    });

  sessions
    .command("repair")
    .description("check the session store, rebuild its search index and recount messages")
    .action(async () => {
      const { report, location } = await withStore(async (store) => ({
        report: await store.repair(),
        location: store.location,
      }));
      for (const line of describeRepair(report, location)) io.out(line);
      if (report.problemsAfter.length > 0) {
        io.err(`${location} is damaged beyond these repairs:`);
        for (const problem of report.problemsAfter) io.err(`  ${problem}`);
        io.err("Restore a backup (hermes backup restore FILE), or move the file aside to start a new store.");
        io.setExitCode(1);
      }
    });

  return sessions;
}
