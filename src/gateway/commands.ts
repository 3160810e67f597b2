/**
 * Gateway slash commands. They reach the runner directly, so /stop, /new, /approve, /deny,
 * /status, /queue and /steer work while an agent runs; commands that change the conversation
 * wait until it is idle. Admin-only commands say so to everyone else.
 */

import { AGENTS_USAGE, answerAgentsCommand } from "../agent/delegation/background-command.js";
import { lastUserMessageIndex } from "../agent/turn-checks.js";
import { choosePersonality, listPersonalities, personalities } from "../runtime/personalities.js";
import { expandAlias, type QuickCommand, quickCommands, runQuickExec } from "../runtime/quick-commands.js";
import { cronCommand } from "../tools/builtin/cron-command.js";
import { isPermissionMode } from "../tools/permissions/gate.js";
import { packageVersion } from "../util/version.js";
import { goalCommand } from "./goal-loop.js";
import type { GatewayRunner } from "./runner.js";
import type { ToolProgressMode } from "./settings.js";
import { confirmInChat, newConversationStake, undoStake } from "./slash-confirm.js";
import { sessionAgent, type Turn } from "./turn.js";
import type { InboundMessage } from "./types.js";

export interface CommandContext {
  runner: GatewayRunner;
  message: InboundMessage;
  sessionKey: string;
  admin: boolean;
}

export interface ParsedCommand {
  name: string;
  args: string;
}

interface GatewayCommand {
  summary: string;
  /** Safe to run while the session's agent works. */
  whileBusy?: boolean;
  adminOnly?: boolean;
  run(ctx: CommandContext, args: string): Promise<string | undefined>;
}

/** `/name args` (a Telegram-style `/name@botname` is accepted); undefined for ordinary text. */
export function parseCommand(text: string): ParsedCommand | undefined {
  const match = /^\/([a-z][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  return { name: (match[1] as string).toLowerCase(), args: (match[2] ?? "").trim() };
}

/** `!name args` for a built-in command `name` (see PlatformAdapter.bangCommands); undefined otherwise. */
export function parseBangCommand(text: string): ParsedCommand | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("!")) return undefined;
  const parsed = parseCommand(`/${trimmed.slice(1)}`);
  return parsed && Object.hasOwn(COMMANDS, parsed.name) ? parsed : undefined;
}

function agentOf(ctx: CommandContext) {
  return ctx.runner.cachedAgent(ctx.sessionKey);
}

async function currentSessionId(ctx: CommandContext): Promise<string | undefined> {
  return agentOf(ctx)?.sessionId ?? (await ctx.runner.store.sessionRoute(ctx.sessionKey))?.sessionId;
}

/** Starts the chat on a fresh session; the old one stays in the store. */
async function startFresh(ctx: CommandContext): Promise<void> {
  const { runner, sessionKey, message } = ctx;
  runner.interactions.cancel(sessionKey);
  agentOf(ctx)?.interrupt("a new session was started");
  runner.runtime.evict(sessionKey);
  const fresh = await runner.runtime.store.createSession({ source: message.platform });
  await runner.routeSession(sessionKey, message, fresh.id);
}

const COMMANDS: Record<string, GatewayCommand> = {
  help: { summary: "list these commands", whileBusy: true, run: async (ctx) => helpText(ctx) },
  new: {
    summary: "start a new conversation (the old one stays saved): /new [-y|confirm|always|cancel]",
    whileBusy: true,
    async run(ctx, args) {
      const stake = async () => newConversationStake(ctx.runner, await currentSessionId(ctx));
      const gate = await confirmInChat(ctx, "new", args, stake);
      if (!gate.proceed) return gate.reply;
      ctx.runner.clearWaiting(ctx.sessionKey);
      await startFresh(ctx);
      return withNote("Started a new conversation.", gate.note);
    },
  },
  stop: {
    summary: "stop what I am doing and drop queued messages",
    whileBusy: true,
    async run(ctx) {
      const dropped = ctx.runner.clearWaiting(ctx.sessionKey);
      ctx.runner.interactions.cancel(ctx.sessionKey);
      const agent = agentOf(ctx);
      const running = agent?.running ?? false;
      agent?.interrupt("stopped by /stop");
      for (const turn of dropped) await finishTurn(ctx.runner, turn);
      if (!running && dropped.length === 0) return "Nothing is running.";
      return `Stopped.${dropped.length ? ` Dropped ${dropped.length} queued message(s).` : ""}`;
    },
  },
  approve: {
    summary: "approve the waiting command: /approve [session|always]",
    whileBusy: true,
    async run(ctx, args) {
      const scope = args.toLowerCase();
      const answer = scope === "session" ? "session" : scope === "always" ? "always" : "once";
      if (answer === "always" && !ctx.admin && (await adminExists(ctx)))
        return "Only the admin can approve a command for good.";
      return ctx.runner.interactions.answerApproval(ctx.sessionKey, answer)
        ? undefined
        : "Nothing is waiting for approval.";
    },
  },
  deny: {
    summary: "refuse the waiting command",
    whileBusy: true,
    async run(ctx) {
      return ctx.runner.interactions.answerApproval(ctx.sessionKey, "deny")
        ? undefined
        : "Nothing is waiting for approval.";
    },
  },
  status: {
    summary: "what I am doing and what waits",
    whileBusy: true,
    async run(ctx) {
      const { runner, sessionKey } = ctx;
      const agent = agentOf(ctx);
      const sessionId = await currentSessionId(ctx);
      return [
        `Session: ${sessionId ?? "none yet"}`,
        `Model: ${runner.runtime.provider}/${runner.runtime.model}`,
        `Working: ${agent?.running ? "yes" : "no"}; queued: ${runner.waiting(sessionKey).length}`,
        runner.interactions.hasApproval(sessionKey) ? "Waiting for /approve or /deny." : "",
      ]
        .filter(Boolean)
        .join("\n");
    },
  },
  queue: {
    summary: "queue a message for after the current one: /queue <text>",
    whileBusy: true,
    async run(ctx, args) {
      if (!args) return "Usage: /queue <message>";
      ctx.runner.enqueue({
        sessionKey: ctx.sessionKey,
        message: { ...ctx.message, text: args },
        extra: [],
        byCommand: true,
      });
      return ctx.runner.busy(ctx.sessionKey) ? "Queued." : undefined;
    },
  },
  steer: {
    summary: "add guidance to the running task: /steer <text>",
    whileBusy: true,
    async run(ctx, args) {
      if (!args) return "Usage: /steer <guidance>";
      const agent = agentOf(ctx);
      if (!agent?.running) return "Nothing is running to steer; send it as a message.";
      agent.steer(args);
      return "↪ Noted; I will take it into account.";
    },
  },
  whoami: {
    summary: "your id here and whether you are the admin",
    whileBusy: true,
    async run(ctx) {
      const m = ctx.message;
      return `You are ${m.userName ? `${m.userName} ` : ""}(id ${m.userId}) on ${m.platform}, chat ${m.chatId}${ctx.admin ? "; admin" : ""}.`;
    },
  },
  version: { summary: "the hermes version", whileBusy: true, run: async () => `hermes ${packageVersion()}` },
  agents: {
    summary: `this conversation's background subagents: ${AGENTS_USAGE}`,
    whileBusy: true,
    async run(ctx, args) {
      const sessionId = await currentSessionId(ctx);
      return answerAgentsCommand(ctx.runner.runtime.background, sessionId, args, ctx.runner.now());
    },
  },
  usage: {
    summary: "tokens used in this conversation",
    whileBusy: true,
    async run(ctx) {
      const id = await currentSessionId(ctx);
      const session = id ? await ctx.runner.runtime.store.getSession(id) : null;
      if (!session) return "No conversation yet.";
      return `This conversation: ${session.promptTokens} tokens in, ${session.completionTokens} out, ${session.messageCount} messages.`;
    },
  },
  sethome: {
    summary: "make this chat the home channel (where scheduled jobs deliver)",
    adminOnly: true,
    async run(ctx) {
      const { message, runner } = ctx;
      await runner.store.setHomeChannel(
        { platform: message.platform, chatId: message.chatId, threadId: message.threadId ?? null },
        runner.now(),
      );
      return `This chat is now the ${message.platform} home channel.`;
    },
  },
  yolo: {
    summary: "run dangerous commands without asking (admin): /yolo on|off",
    adminOnly: true,
    whileBusy: true,
    async run(ctx, args) {
      const approvals = ctx.runner.runtime.approvals;
      approvals.yolo = args ? /^(on|true|1)$/i.test(args) : !approvals.yolo;
      return approvals.yolo
        ? "YOLO on: dangerous commands run without asking."
        : "YOLO off: dangerous commands ask first.";
    },
  },
  mode: {
    summary: "permission mode: /mode plan|ask|auto-edit|yolo (auto-edit and yolo: admin)",
    whileBusy: true,
    async run(ctx, args) {
      const gate = agentOf(ctx)?.options.permissions;
      const current =
        ctx.runner.permissionModes.get(ctx.sessionKey) ??
        gate?.mode ??
        ctx.runner.runtime.config.approvals.default_mode;
      const wanted = args.toLowerCase();
      if (!wanted) return `Mode: ${current}. /mode plan|ask|auto-edit|yolo changes it.`;
      if (!isPermissionMode(wanted)) return "Usage: /mode plan|ask|auto-edit|yolo";
      if ((wanted === "auto-edit" || wanted === "yolo") && !ctx.admin && (await adminExists(ctx))) {
        return `/mode ${wanted} is for the admin only.`;
      }
      ctx.runner.permissionModes.set(ctx.sessionKey, wanted);
      if (gate) gate.mode = wanted;
      return wanted === "plan"
        ? "Plan mode: I will only read and investigate, then propose a plan. /mode ask lets me carry it out."
        : `Mode: ${wanted}.`;
    },
  },
  title: {
    summary: "name this conversation: /title <name>",
    async run(ctx, args) {
      const id = await currentSessionId(ctx);
      if (!id || !(await ctx.runner.runtime.store.getSession(id))) return "No conversation to name yet.";
      if (!args) return `Title: ${(await ctx.runner.runtime.store.getSession(id))?.title ?? "(none)"}`;
      await ctx.runner.runtime.store.rename(id, args.slice(0, 120));
      return `Named this conversation "${args.slice(0, 120)}".`;
    },
  },
  undo: {
    summary: "forget the last exchange: /undo [-y|confirm|always|cancel]",
    async run(ctx, args) {
      const stake = async () => undoStake(ctx.runner, await currentSessionId(ctx));
      const gate = await confirmInChat(ctx, "undo", args, stake);
      if (!gate.proceed) return gate.reply;
      const removed = await undoLast(ctx);
      if (removed === undefined) return "Nothing to undo.";
      return withNote(`Forgot the last exchange ("${oneLine(removed)}").`, gate.note);
    },
  },
  goal: {
    summary:
      "a standing goal I work on, turn after turn, until it is achieved: /goal TEXT | status | pause | resume | clear",
    whileBusy: true,
    async run(ctx, args) {
      const agent = agentOf(ctx) ?? (await sessionAgent(ctx.runner, ctx.sessionKey, ctx.message));
      return goalCommand(ctx.runner, {
        sessionKey: ctx.sessionKey,
        sessionId: agent.sessionId,
        message: ctx.message,
        args,
      });
    },
  },
  retry: {
    summary: "answer the last message again",
    async run(ctx) {
      const removed = await undoLast(ctx);
      if (removed === undefined) return "Nothing to retry yet.";
      ctx.runner.enqueue({
        sessionKey: ctx.sessionKey,
        message: ctx.message,
        extra: [],
        text: removed,
        byCommand: true,
        freshReply: true,
      });
      return undefined;
    },
  },
  compress: {
    summary: "summarise the conversation so far to free context: /compress [focus]",
    async run(ctx, args) {
      const agent = agentOf(ctx);
      if (!agent) return "Nothing to compress yet.";
      const result = await agent.compress(args || undefined);
      if (!result?.compressed) return `Not compressed${result?.reason ? `: ${result.reason}` : ""}.`;
      await ctx.runner.routeSession(ctx.sessionKey, ctx.message, agent.sessionId);
      return `Compressed: ~${result.tokensBefore} → ~${result.tokensAfter} tokens.`;
    },
  },
  sessions: {
    summary: "recent conversations from this platform",
    whileBusy: true,
    async run(ctx) {
      const sessions = await ctx.runner.runtime.store.listSessions({ source: ctx.message.platform, limit: 10 });
      if (sessions.length === 0) return "No saved conversations yet.";
      return sessions.map((s) => `${s.id}  ${s.title ?? oneLine(s.preview ?? "")}`).join("\n");
    },
  },
  resume: {
    summary: "continue a saved conversation: /resume <session id>",
    async run(ctx, args) {
      if (!args) return "Usage: /resume <session id> (see /sessions)";
      const session = await ctx.runner.runtime.store.getSession(args);
      if (!session || session.source !== ctx.message.platform) return `No conversation "${args}" here.`;
      ctx.runner.runtime.evict(ctx.sessionKey);
      await ctx.runner.routeSession(ctx.sessionKey, ctx.message, session.id);
      return `Continuing "${session.title ?? session.id}".`;
    },
  },
  reasoning: {
    summary: "the model's reasoning effort here: /reasoning [none|minimal|low|medium|high|xhigh]",
    async run(ctx, args) {
      const agent = await sessionAgent(ctx.runner, ctx.sessionKey, ctx.message);
      if (!args) return `Reasoning effort: ${agent.options.reasoningEffort || "the model's default"}.`;
      const level = args.toLowerCase();
      if (!REASONING_LEVELS.includes(level)) return `Usage: /reasoning [${REASONING_LEVELS.join("|")}]`;
      agent.options.reasoningEffort = level;
      return `Reasoning effort set to ${level} for this conversation.`;
    },
  },
  personality: {
    summary: "take on a personality here: /personality [NAME|none]",
    async run(ctx, args) {
      const known = personalities(ctx.runner.runtime.config.personalities, (problem) => ctx.runner.log(problem));
      const agent = await sessionAgent(ctx.runner, ctx.sessionKey, ctx.message);
      const choice = choosePersonality(args, known);
      if (typeof choice === "string") return choice;
      if (choice.kind === "list") return listPersonalities(known, agent.options.personality?.name);
      if (choice.kind === "clear") {
        delete agent.options.personality;
        return "Personality cleared for this conversation.";
      }
      agent.options.personality = { name: choice.personality.name, prompt: choice.personality.prompt };
      return `Personality set to ${choice.personality.name} for this conversation.`;
    },
  },
  verbose: {
    summary: "cycle the tool progress shown here: off, new, all, verbose",
    whileBusy: true,
    async run(ctx, args) {
      const current =
        ctx.runner.toolProgressChoice.get(ctx.sessionKey) ??
        ctx.runner.settings.display(ctx.message.platform).toolProgress;
      const wanted = args.toLowerCase();
      const next = (PROGRESS_MODES as readonly string[]).includes(wanted)
        ? (wanted as ToolProgressMode)
        : PROGRESS_MODES[(PROGRESS_MODES.indexOf(current) + 1) % PROGRESS_MODES.length]!;
      ctx.runner.toolProgressChoice.set(ctx.sessionKey, next);
      return `Tool progress here: ${next}.`;
    },
  },
  cron: {
    summary: "this chat's scheduled jobs: /cron, or /cron pause|resume|remove|run <id>",
    whileBusy: true,
    async run(ctx, args) {
      const scheduler = ctx.runner.options.scheduler;
      if (!scheduler) return "Scheduled jobs are not available here.";
      const m = ctx.message;
      const scope = { platform: m.platform, chatId: m.chatId, threadId: m.threadId ?? null, userId: m.userId };
      return cronCommand(scheduler, scope, args);
    },
  },
  model: {
    summary: "the model in use",
    whileBusy: true,
    run: async (ctx) => `${ctx.runner.runtime.provider}/${ctx.runner.runtime.model}`,
  },
};

const REASONING_LEVELS = ["none", "minimal", "low", "medium", "high", "xhigh"];
const PROGRESS_MODES: readonly ToolProgressMode[] = ["off", "new", "all", "verbose"];

function withNote(reply: string, note: string | undefined): string {
  return note ? `${reply}\n${note}` : reply;
}

function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function helpText(ctx: CommandContext): string {
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `/${name} — ${command.summary}${command.adminOnly ? " (admin)" : ""}`,
  );
  for (const quick of quickCommandsOf(ctx.runner)) lines.push(`/${quick.name} — ${quick.description}`);
  for (const { item } of pluginCommands(ctx)) lines.push(`/${item.name} — ${item.description}`);
  return ["Commands:", ...lines].join("\n");
}

const quickByRunner = new WeakMap<GatewayRunner, QuickCommand[]>();

/** `quick_commands` of this gateway's config, read once (problems go to the gateway log). */
function quickCommandsOf(runner: GatewayRunner): QuickCommand[] {
  let commands = quickByRunner.get(runner);
  if (!commands) {
    commands = quickCommands(
      runner.runtime.config.quick_commands,
      (name) => name in COMMANDS,
      (problem) => runner.log(problem),
    );
    quickByRunner.set(runner, commands);
  }
  return commands;
}

function pluginCommands(ctx: CommandContext) {
  return ctx.runner.runtime.extensions?.plugins.commands.filter(({ item }) => !(item.name in COMMANDS)) ?? [];
}

/** A plugin's slash command: its answer, or what went wrong (never an exception into the chat loop). */
async function runPluginCommand(ctx: CommandContext, parsed: ParsedCommand): Promise<string | undefined> {
  const found = pluginCommands(ctx).find(({ item }) => item.name === parsed.name);
  if (!found) return undefined;
  try {
    const answer = await found.item.run(parsed.args, {
      platform: ctx.message.platform,
      home: ctx.runner.runtime.home,
      ...((await currentSessionId(ctx)) ? { sessionId: await currentSessionId(ctx) } : {}),
    });
    return typeof answer === "string" && answer ? answer : `/${parsed.name} done.`;
  } catch (error) {
    return `/${parsed.name} (plugin ${found.owner}) failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Whether anyone has been made the admin (until then, every allowed user counts as one). */
async function adminExists(ctx: CommandContext): Promise<boolean> {
  return (await ctx.runner.store.approvedUsers()).some((user) => user.admin);
}

/** Removes the last user message and everything after it; returns its text. */
async function undoLast(ctx: CommandContext): Promise<string | undefined> {
  const id = await currentSessionId(ctx);
  if (!id) return undefined;
  const store = ctx.runner.runtime.store;
  const messages = await store.getMessages(id);
  const index = lastUserMessageIndex(messages);
  if (index < 0) return undefined;
  const content = messages[index]?.content;
  await store.truncateMessages(id, index);
  // The cached agent still holds the exchange in memory; the next turn reloads the transcript.
  ctx.runner.runtime.evict(ctx.sessionKey);
  return typeof content === "string" ? content : JSON.stringify(content);
}

async function finishTurn(runner: GatewayRunner, turn: Turn): Promise<void> {
  for (const message of [turn.message, ...turn.extra]) await runner.finish(message);
}

/** An alias of `quick_commands` becomes the command it stands for; undefined after replying to a loop. */
async function withoutAlias(ctx: CommandContext, parsed: ParsedCommand): Promise<ParsedCommand | undefined> {
  try {
    const line = expandAlias(`/${parsed.name}${parsed.args ? ` ${parsed.args}` : ""}`, quickCommandsOf(ctx.runner));
    return parseCommand(line) ?? parsed;
  } catch (error) {
    await ctx.runner.reply(ctx.message, ctx.sessionKey, (error as Error).message);
    return undefined;
  }
}

export async function handleCommand(ctx: CommandContext, typed: ParsedCommand): Promise<void> {
  const { runner, message, sessionKey } = ctx;
  const parsed = await withoutAlias(ctx, typed);
  if (!parsed) return;
  const command = COMMANDS[parsed.name];
  let reply: string | undefined;
  if (!command) {
    const exec = quickCommandsOf(runner).find((quick) => quick.type === "exec" && quick.name === parsed.name);
    if (exec?.type === "exec") reply = await runQuickExec(exec, runner.runtime.cwd);
    else reply = (await runPluginCommand(ctx, parsed)) ?? `Unknown command /${parsed.name}. Send /help for the list.`;
  } else if (command.adminOnly && !ctx.admin && (await adminExists(ctx)))
    reply = `/${parsed.name} is for the admin only.`;
  else if (!command.whileBusy && runner.busy(sessionKey)) {
    if (runner.cachedAgent(sessionKey)?.running) {
      reply = `/${parsed.name} has to wait: I am working. Send /stop first, or /queue a message.`;
    } else {
      // The last turn is only wrapping up (its reply is out): the command runs right after it.
      const run = async () => {
        const later = await command.run(ctx, parsed.args);
        if (later) await runner.reply(message, sessionKey, later);
      };
      runner.enqueue({ sessionKey, message, extra: [], command: run });
      return;
    }
  } else reply = await command.run(ctx, parsed.args);
  if (reply) await runner.reply(message, sessionKey, reply);
}
