/** Slash commands that manage the conversation: new, clear, history, retry, undo, title, resume, sessions, compress. */

import { isTurnNote, lastUserMessageIndex } from "../../agent/turn-checks.js";
import type { Message } from "../../llm/types.js";
import type { SessionSummary } from "../../state/session-store.js";
import { resumeRecap } from "../resume-recap.js";
import { confirmFirst } from "./confirm.js";
import type { SlashContext } from "./context.js";
import type { SlashCommand } from "./registry.js";

type Command = SlashCommand<SlashContext>;

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function textOf(content: Message["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join(" ");
}

/** A readable transcript of the conversation, one block per message. */
export function formatHistory(messages: readonly Message[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    const text = textOf(message.content);
    if (message.role === "user") lines.push(isTurnNote(message) ? `(note to the model) ${text}` : `you: ${text}`);
    else if (message.role === "assistant") {
      if (text) lines.push(`hermes: ${text}`);
      for (const call of message.tool_calls ?? []) {
        lines.push(`  → ${call.function.name}(${oneLine(call.function.arguments, 100)})`);
      }
    } else if (message.role === "tool") {
      lines.push(`  ← ${message.name ?? "tool"}: ${oneLine(text, 100)}`);
    }
  }
  return lines;
}

function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatSessionRow(session: SessionSummary, currentId: string): string {
  const mark = session.id === currentId ? "*" : " ";
  const title = oneLine(session.title ?? session.preview ?? "(untitled)", 48);
  return `${mark} ${session.id}  ${formatTime(session.lastActive)}  ${String(session.messageCount).padStart(4)} msgs  ${title}`;
}

async function recentSessions(ctx: SlashContext, limit: number): Promise<SessionSummary[]> {
  return ctx.runtime.store.listSessions({ limit, source: "cli" });
}

/** An exact session id, a unique id prefix, or a unique title among recent sessions. */
async function findSession(ctx: SlashContext, query: string): Promise<string | string[]> {
  if (await ctx.runtime.store.getSession(query)) return query;
  const recent = await recentSessions(ctx, 200);
  const needle = query.toLowerCase();
  const matches = recent.filter((s) => s.id.startsWith(query) || (s.title ?? "").toLowerCase() === needle);
  if (matches.length === 1) return matches[0]!.id;
  return matches.map((s) => s.id);
}

const BUSY = "The agent is working: wait for the turn to finish, or /stop it first.";

/** The question before /new and /clear; undefined for an empty session (nothing to lose). */
function newSessionQuestion(ctx: SlashContext, action: string): () => Promise<string | undefined> {
  return async () => {
    const count = (await ctx.messages()).length;
    if (count === 0) return undefined;
    return `${action}? This one (${count} messages) stays saved; /resume brings it back.`;
  };
}

/** The question before /undo; undefined when there is no exchange to remove. */
function undoQuestion(ctx: SlashContext): () => Promise<string | undefined> {
  return async () => {
    const messages = await ctx.messages();
    const index = lastUserMessageIndex(messages);
    if (index < 0) return undefined;
    const text = oneLine(textOf(messages[index]!.content), 60);
    return `Remove your last message ("${text}") and the reply to it? The saved session loses it too.`;
  };
}

export const sessionCommands: Command[] = [
  {
    name: "new",
    aliases: ["reset"],
    args: "[-y]",
    description: "start a new session",
    category: "session",
    async run(args, ctx) {
      const gate = await confirmFirst(ctx, "destructive", args, newSessionQuestion(ctx, "Start a new session"));
      if (!gate.proceed) return;
      await ctx.newSession();
      ctx.print(`New session ${ctx.runtime.agent.sessionId}.`);
      gate.after();
    },
  },
  {
    name: "clear",
    args: "[-y]",
    description: "clear the screen and start a new session",
    category: "session",
    async run(args, ctx) {
      const question = newSessionQuestion(ctx, "Clear the screen and start a new session");
      const gate = await confirmFirst(ctx, "destructive", args, question);
      if (!gate.proceed) return;
      ctx.clearScreen();
      await ctx.newSession();
      ctx.print(`New session ${ctx.runtime.agent.sessionId}.`);
      gate.after();
    },
  },
  {
    name: "history",
    description: "show the conversation so far",
    category: "session",
    async run(_args, ctx) {
      const lines = formatHistory(await ctx.messages());
      ctx.print(lines.length ? lines.join("\n") : "No messages yet.");
    },
  },
  {
    name: "retry",
    description: "send your last message again",
    category: "session",
    async run(_args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      const last = await ctx.undo();
      if (last === undefined) return ctx.print("Nothing to retry yet.");
      ctx.print(`Retrying: ${oneLine(last, 80)}`);
      await ctx.send(last);
    },
  },
  {
    name: "undo",
    args: "[-y]",
    description: "remove your last message and the reply to it",
    category: "session",
    async run(args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      const gate = await confirmFirst(ctx, "destructive", args, undoQuestion(ctx));
      if (!gate.proceed) return;
      const removed = await ctx.undo();
      ctx.print(removed === undefined ? "Nothing to undo." : `Removed the last exchange: ${oneLine(removed, 80)}`);
      gate.after();
    },
  },
  {
    name: "learn",
    args: "[WHAT | list | apply ID|all | reject ID|all]",
    description: "turn this session into a skill or memory now, or decide on queued learning proposals",
    category: "session",
    async run(args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      const learner = ctx.runtime.learner;
      if (!learner) return ctx.print("Learning is off (learning.mode: off in config.yaml).");
      const [word, ...rest] = args.trim().split(/\s+/).filter(Boolean);
      const { proposalLine, applyQueued } = await import("../commands/learn.js");
      if (word === "list" || (!word && learner.queue.list().length > 0)) {
        const queued = learner.queue.list();
        if (queued.length === 0) return ctx.print("No proposals waiting.");
        return ctx.print(
          `${queued.map(proposalLine).join("\n")}\n/learn apply ID|all or /learn reject ID|all decides.`,
        );
      }
      if (word === "apply" || word === "reject") {
        const ids = rest[0] === "all" ? undefined : rest.map(Number).filter((n) => Number.isInteger(n) && n > 0);
        if (ids !== undefined && ids.length === 0) return ctx.print(`Usage: /learn ${word} ID...|all`);
        const taken = learner.queue.take(ids);
        if (taken.length === 0) return ctx.print("No such proposal (/learn list shows them).");
        return ctx.print(
          word === "reject" ? `Rejected ${taken.length} proposal(s).` : (await applyQueued(taken)).join("\n"),
        );
      }
      const { agent } = ctx.runtime;
      const memory = agent.memoryStore;
      ctx.print("Reviewing this session for something worth keeping…");
      const report = await learner.learnNow(
        {
          sessionId: agent.sessionId,
          platform: "cli",
          interactive: true,
          userMessage: args,
          finalResponse: "",
          toolCalls: 0,
          messages: await ctx.messages(),
          ...(memory ? { memory, memoryDir: memory.dir } : {}),
          announce: (line) => ctx.print(line),
        },
        args.trim(),
      );
      ctx.print(report);
    },
  },
  {
    name: "rollback",
    args: "[N [FILE] [--force] | diff N]",
    description: "list checkpoints of this project, restore one (or one file), or show its diff",
    category: "session",
    async run(args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      const { checkpointsFor, parseRollback, runRollback } = await import("../checkpoint-view.js");
      const request = parseRollback(args);
      if (typeof request === "string") return ctx.print(request);
      const { home, config, agent } = ctx.runtime;
      const project = await checkpointsFor(home, config, agent.options.cwd ?? process.cwd());
      try {
        ctx.print(await runRollback(request, project));
      } catch (error) {
        ctx.print(`✗ ${(error as Error).message}`);
      }
    },
  },
  {
    name: "title",
    args: "[NAME]",
    description: "show or set the session title",
    category: "session",
    whileBusy: true,
    async run(args, ctx) {
      const { store, agent, model } = ctx.runtime;
      const session = await store.getSession(agent.sessionId);
      if (!args) return ctx.print(`Title: ${session?.title ?? "(none)"}`);
      // The session row is written by the first turn; create it now so the title sticks.
      if (!session) await store.createSession({ id: agent.sessionId, source: "cli", model });
      await store.rename(agent.sessionId, args);
      ctx.print(`Title set: ${args}`);
    },
  },
  {
    name: "resume",
    args: "[ID]",
    description: "continue a saved session (without ID: list recent ones)",
    category: "session",
    async run(args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      if (!args) {
        const rows = await recentSessions(ctx, 10);
        if (rows.length === 0) return ctx.print("No saved sessions yet.");
        const current = ctx.runtime.agent.sessionId;
        return ctx.print(
          ["Recent sessions (/resume ID):", ...rows.map((s) => formatSessionRow(s, current))].join("\n"),
        );
      }
      const found = await findSession(ctx, args);
      if (Array.isArray(found)) {
        return ctx.print(
          found.length ? `"${args}" matches several sessions: ${found.join(", ")}` : `No session matches "${args}".`,
        );
      }
      await ctx.resume(found);
      const messages = await ctx.messages();
      const recap = ctx.display.resume ? resumeRecap(messages, ctx.display.resume).slice(1) : [];
      ctx.print([`Resumed session ${found} (${messages.length} messages).`, ...recap].join("\n"));
    },
  },
  {
    name: "sessions",
    description: "list recent sessions",
    category: "session",
    whileBusy: true,
    async run(_args, ctx) {
      const rows = await recentSessions(ctx, 20);
      const current = ctx.runtime.agent.sessionId;
      ctx.print(rows.length ? rows.map((s) => formatSessionRow(s, current)).join("\n") : "No saved sessions yet.");
    },
  },
  {
    name: "compress",
    args: "[FOCUS]",
    description: "summarise older turns to free context (optionally around a topic)",
    category: "session",
    async run(args, ctx) {
      if (ctx.busy) return ctx.print(BUSY);
      ctx.print(await ctx.compress(args || undefined));
    },
  },
];
