/**
 * The interactive session without the screen: runs turns one after another, queues what the
 * user sends meanwhile, dispatches slash commands, and rebuilds the agent when the session or
 * model changes. A view (the TUI, or plain lines when stdin is not a terminal) draws it.
 */

import type { RunResult } from "../../agent/agent.js";
import type { AgentEvent } from "../../agent/events.js";
import { resolveToolNames } from "../../agent/options.js";
import { titleWithAuxiliary } from "../../agent/session-title.js";
import { lastUserMessageIndex } from "../../agent/turn-checks.js";
import type { Message } from "../../llm/types.js";
import { estimateCost } from "../../llm/usage.js";
import { externalSkillDirs } from "../../runtime/skill-dirs.js";
import type { ConfirmAnswer, ConfirmKind } from "../../runtime/slash-confirm.js";
import type { PermissionMode } from "../../tools/permissions/gate.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../tools/registry.js";
import { discoverSkills, type Skill } from "../../tools/skills/discovery.js";
import { expandSkillCommand } from "../../tools/skills/slash-command.js";
import { estimateTextTokens, estimateTokens } from "../../util/tokens.js";
import { markTurnCompleted } from "../../util/turn-marker.js";
import type { ChatFlags } from "../program.js";
import { recapSettings } from "../resume-recap.js";
import { buildRuntime, type Runtime, type RuntimeOptions } from "../runtime.js";
import { SessionTitler } from "../session-titles.js";
import { createSlashRegistry } from "../slash/commands.js";
import type { ContextStatus, DisplaySettings, SessionUsage, SlashContext, ToolProgressMode } from "../slash/context.js";
import { describeUnresolved, type SlashRegistry, type SlashResolution } from "../slash/registry.js";
import { flagsAfterStart } from "./auto-resume.js";
import { BackgroundInbox } from "./background-inbox.js";
import { displayOptionsFrom } from "./display-options.js";
import { registerPluginCommands, registerQuickCommands } from "./extra-commands.js";
import { GoalDriver } from "./goal-driver.js";

export interface TurnOutcome {
  text: string;
  result?: RunResult;
  error?: string;
}

/** What the controller needs from whatever draws the session. */
export interface ChatView {
  print(text: string): void;
  clearScreen(): void;
  agentEvent(event: AgentEvent): void;
  turnStarted(text: string): void;
  turnEnded(outcome: TurnOutcome): void;
  /** Ring the terminal bell (`display.bell_on_complete`). */
  bell?(): void;
  /** Session, model, usage or busy state changed: redraw the status line. */
  statusChanged(): void;
  askClarify(question: string, choices?: string[]): Promise<string>;
  askApproval(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** The go ahead / always / cancel question before /new, /clear, /undo, /reload-mcp; absent: never asked. */
  askConfirm?(question: string, kind: ConfirmKind): Promise<ConfirmAnswer>;
  exit(): void;
}

function emptyTotals(): SessionUsage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    apiCalls: 0,
    toolCalls: 0,
    turns: 0,
    cost: 0,
  };
}

function textOf(content: Message["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function toolProgressFrom(value: string): ToolProgressMode {
  return value === "off" || value === "new" || value === "verbose" ? value : "all";
}

export class ChatController implements SlashContext {
  readonly commands: SlashRegistry<SlashContext> = createSlashRegistry();
  readonly display: DisplaySettings;
  private current: Runtime;
  private unsubscribe: () => void;
  private running: Promise<void> | undefined;
  private readonly queue: string[] = [];
  /** History the next turn starts from, after /undo or a model switch. */
  private pendingHistory: Message[] | undefined;
  /** Set by /undo (and so /retry): the next turn asks for a new reply, not a cached one. */
  private freshNext = false;
  private totals = emptyTotals();
  private systemPromptTokens = 0;
  private closed = false;
  /** /stop was used during the running turn: a standing goal pauses instead of going on. */
  private stopRequested = false;
  readonly goals: GoalDriver = new GoalDriver({
    sessionId: () => this.current.agent.sessionId,
    home: () => this.current.agent.options.home,
    maxTurns: () => this.current.config.goals.max_turns,
    auxiliary: () => this.current.auxiliary(),
    print: (text) => this.print(text),
    queue: this.queue,
    takeStopRequest: () => {
      const stopped = this.stopRequested;
      this.stopRequested = false;
      return stopped;
    },
    closed: () => this.closed,
  });
  private readonly background = new BackgroundInbox({
    print: (text) => this.print(text),
    busy: () => this.busy,
    closed: () => this.closed,
    start: (text) => void this.send(text),
  });
  private readonly titler = new SessionTitler(
    titleWithAuxiliary(
      () => this.current.auxiliary(),
      () => this.current.config.auxiliary.title.language,
    ),
  );

  private constructor(
    runtime: Runtime,
    private flags: ChatFlags,
    private readonly view: ChatView,
    private readonly runtimeOptions: RuntimeOptions,
  ) {
    this.current = runtime;
    this.display = {
      showReasoning: runtime.config.display.show_reasoning,
      toolProgress: flags.verbose ? "verbose" : toolProgressFrom(runtime.config.display.tool_progress),
      streaming: runtime.config.display.streaming,
      showCost: runtime.config.display.show_cost,
      compact: runtime.config.display.compact,
      bellOnComplete: runtime.config.display.bell_on_complete,
      resume: recapSettings(runtime.config.display),
      options: displayOptionsFrom(runtime.config),
    };
    this.unsubscribe = runtime.agent.on((event) => this.view.agentEvent(event));
    this.background.attach(runtime.background);
    registerPluginCommands(this.commands, runtime, () => this.current.agent.sessionId);
    registerQuickCommands(this.commands, runtime, (text) => view.print(text));
  }

  static async create(
    flags: ChatFlags,
    view: ChatView,
    options: Pick<RuntimeOptions, "localServers" | "autoResumeRecent"> = {},
  ): Promise<ChatController> {
    const { autoResumeRecent, ...rest } = options;
    const runtimeOptions: RuntimeOptions = {
      ...rest,
      interactive: true,
      quiet: Boolean(flags.quiet),
      clarify: (question, choices) => view.askClarify(question, choices),
      requestApproval: (request) => view.askApproval(request),
    };
    const runtime = await buildRuntime(flags, { ...runtimeOptions, autoResumeRecent });
    const started = await flagsAfterStart(flags, runtime, autoResumeRecent);
    const controller = new ChatController(runtime, started, view, { ...runtimeOptions, quiet: true });
    if (started.resume || started.continue) await controller.loadTotals();
    return controller;
  }

  get runtime(): Runtime {
    return this.current;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Resolves when the running turn and everything queued behind it have finished. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  print(text: string): void {
    this.view.print(text);
  }

  get askConfirm(): ((question: string, kind: ConfirmKind) => Promise<ConfirmAnswer>) | undefined {
    const view = this.view;
    return view.askConfirm ? (question, kind) => view.askConfirm!(question, kind) : undefined;
  }

  clearScreen(): void {
    this.view.clearScreen();
  }

  /** Handle one line the user entered: a slash command, or a message for the agent. */
  async submit(line: string): Promise<void> {
    const text = line.trim();
    if (!text) return;
    const resolution = this.commands.resolve(text);
    if (resolution?.kind === "unknown") {
      // Every installed skill is also a `/skill-name` command.
      const skills = this.current.config.skills;
      const skill = await expandSkillCommand(text, this.skills(), {
        sessionId: this.current.agent.sessionId,
        preprocessing: {
          templateVars: skills.template_vars,
          inlineShell: skills.inline_shell,
          inlineShellTimeout: skills.inline_shell_timeout,
        },
      });
      if (skill) return this.send(skill.message);
    }
    if (resolution) return this.runCommand(resolution);
    await this.send(text);
  }

  /** Skills installed for this user and project, read fresh so a skill written mid-session is usable. */
  skills(): Skill[] {
    const home = this.current.agent.options.home;
    if (!home) return [];
    return discoverSkills({
      home,
      cwd: this.current.agent.options.cwd ?? process.cwd(),
      externalDirs: externalSkillDirs(this.current.config.skills.external_dirs, home),
    }).skills;
  }

  private async runCommand(resolution: SlashResolution<SlashContext>): Promise<void> {
    if (resolution.kind !== "command") return this.print(describeUnresolved(resolution));
    const { command, args } = resolution;
    if (this.busy && !command.whileBusy) {
      return this.print(`/${command.name} has to wait: the agent is working. /stop it first, or /queue a message.`);
    }
    try {
      await command.run(args, this);
    } catch (error) {
      this.print(`/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.view.statusChanged();
  }

  send(text: string): Promise<void> {
    if (this.running) {
      // A message typed while the agent works stops the turn and goes next.
      this.queue.unshift(text);
      this.print("Interrupting: your message goes next.");
      this.current.agent.interrupt();
      return this.running;
    }
    const run = this.drain(text).finally(() => {
      this.running = undefined;
      this.view.statusChanged();
    });
    this.running = run;
    this.view.statusChanged();
    return run;
  }

  enqueue(text: string): void {
    if (this.running) {
      this.queue.push(text);
      this.view.statusChanged();
    } else {
      void this.send(text);
    }
  }

  stop(): void {
    this.queue.length = 0;
    if (this.running) this.stopRequested = true;
    this.current.agent.interrupt();
  }

  private async drain(first: string): Promise<void> {
    let next: string | undefined = first;
    while (next !== undefined && !this.closed) {
      const outcome = await this.runTurn(next);
      // What the user sent meanwhile goes first, then finished background subagents; a standing
      // goal's next step only after them.
      next =
        this.queue.shift() ??
        (this.stopRequested ? this.background.hold() : this.background.take()) ??
        (outcome ? await this.goals.afterTurn(outcome) : undefined);
    }
  }

  private async runTurn(text: string): Promise<TurnOutcome | undefined> {
    // A message that alone is larger than the whole window cannot be answered, whatever is compressed.
    const size = estimateTextTokens(text);
    const window = await this.current.agent.contextWindow();
    if (size > window) {
      this.print(
        `Not sent: this message is about ${size.toLocaleString("en-US")} tokens, more than the model's whole context window ` +
          `(${window.toLocaleString("en-US")} tokens). Send a shorter part, or put it in a file and ask the agent to read parts of it.`,
      );
      return undefined;
    }
    this.view.turnStarted(this.background.label(text));
    const history = this.pendingHistory;
    this.pendingHistory = undefined;
    const freshReply = this.freshNext;
    this.freshNext = false;
    const outcome: TurnOutcome = { text };
    try {
      outcome.result = await this.current.agent.runConversation(text, {
        ...(history ? { conversationHistory: history } : {}),
        ...(freshReply ? { freshReply } : {}),
      });
      markTurnCompleted();
      if (outcome.result.error) outcome.error = outcome.result.error;
      this.addUsage(outcome.result);
      if (outcome.result.completed) {
        const { store, agent } = this.current;
        this.titler.afterTurn(store, agent.sessionId, text, outcome.result.finalResponse);
      }
    } catch (error) {
      outcome.error = error instanceof Error ? error.message : String(error);
    }
    if (!this.systemPromptTokens) await this.loadSystemPromptSize();
    this.view.turnEnded(outcome);
    if (this.display.bellOnComplete && !outcome.result?.interrupted) this.view.bell?.();
    return outcome;
  }

  private addUsage(result: RunResult): void {
    const t = this.totals;
    t.inputTokens += result.usage.inputTokens;
    t.outputTokens += result.usage.outputTokens;
    t.cacheReadTokens += result.usage.cacheReadTokens;
    t.cacheWriteTokens += result.usage.cacheWriteTokens;
    t.reasoningTokens += result.usage.reasoningTokens;
    t.apiCalls += result.apiCalls;
    t.toolCalls += result.toolCalls;
    t.turns += 1;
    const cost = estimateCost(result.model, result.usage);
    t.cost = t.cost === undefined || cost === undefined ? undefined : t.cost + cost;
  }

  private async loadTotals(): Promise<void> {
    const session = await this.current.store.getSession(this.current.agent.sessionId);
    if (!session) return;
    const usage = {
      inputTokens: session.promptTokens,
      outputTokens: session.completionTokens,
      cacheReadTokens: session.cacheReadTokens,
      cacheWriteTokens: session.cacheWriteTokens,
      reasoningTokens: 0,
    };
    this.totals = { ...emptyTotals(), ...usage, cost: estimateCost(this.current.model, usage) };
    this.systemPromptTokens = session.systemPrompt ? estimateTextTokens(session.systemPrompt) : 0;
  }

  private async loadSystemPromptSize(): Promise<void> {
    const session = await this.current.store.getSession(this.current.agent.sessionId);
    if (session?.systemPrompt) this.systemPromptTokens = estimateTextTokens(session.systemPrompt);
  }

  usage(): SessionUsage {
    return { ...this.totals };
  }

  async messages(): Promise<Message[]> {
    if (this.pendingHistory) return [...this.pendingHistory];
    const { agent, store } = this.current;
    if (agent.messages.length > 0) return [...agent.messages];
    if (!(await store.getSession(agent.sessionId))) return [];
    const stored = await store.getMessages(agent.sessionId);
    return stored.filter((m) => m.role !== "system") as Message[];
  }

  async undo(): Promise<string | undefined> {
    const messages = await this.messages();
    const index = lastUserMessageIndex(messages);
    if (index < 0) return undefined;
    this.pendingHistory = messages.slice(0, index);
    this.freshNext = true;
    // Saved at once, so a session left right after /undo resumes without the undone exchange.
    const { agent, store } = this.current;
    if (await store.getSession(agent.sessionId)) await store.truncateMessages(agent.sessionId, index);
    this.view.statusChanged();
    return textOf(messages[index]!.content);
  }

  async contextStatus(): Promise<ContextStatus> {
    const { agent } = this.current;
    const messages = await this.messages();
    const registry = agent.options.registry;
    const schemas = registry ? JSON.stringify(registry.definitions(await resolveToolNames(agent.options))) : "";
    const tokens = estimateTokens(messages) + this.systemPromptTokens + estimateTextTokens(schemas);
    // The same number compression works with: configured, known for the model, or probed.
    const window = await agent.contextWindow();
    return { tokens, window, percent: Math.min(100, Math.round((tokens / window) * 100)) };
  }

  async newSession(): Promise<void> {
    await this.rebuild({ resume: undefined, continue: false });
    this.pendingHistory = undefined;
    this.totals = emptyTotals();
    this.systemPromptTokens = 0;
  }

  async resume(sessionId: string): Promise<void> {
    await this.rebuild({ resume: sessionId, continue: false });
    this.pendingHistory = undefined;
    await this.loadTotals();
  }

  async switchModel(model: string, provider?: string): Promise<void> {
    const history = await this.messages();
    const { agent, store, provider: currentProvider, baseUrl } = this.current;
    const saved = await store.getSession(agent.sessionId);
    const changesProvider = provider !== undefined && provider !== currentProvider;
    const patch: Partial<ChatFlags> = {
      model,
      provider: provider ?? currentProvider,
      baseUrl: changesProvider ? undefined : baseUrl,
      // The provider's own key, endpoint and protocol come with it when the provider changes.
      apiKey: changesProvider ? undefined : this.flags.apiKey,
      apiMode: changesProvider ? undefined : this.flags.apiMode,
      resume: saved ? agent.sessionId : undefined,
      continue: false,
    };
    await this.rebuild(patch);
    if (history.length > 0) this.pendingHistory = history;
  }

  async compress(focus?: string): Promise<string> {
    const agent = this.current.agent;
    const before = await this.contextStatus();
    // After /undo the shortened history is what gets compressed (and what the next turn starts from).
    const history = this.pendingHistory;
    this.pendingHistory = undefined;
    const result = await agent.compress(focus, history ? { conversationHistory: history } : {});
    const count = (await this.messages()).length;
    if (!result) return "Nothing to compress yet: the conversation is empty.";
    if (!result.compressed) {
      if (result.reason?.startsWith("nothing between")) {
        return `Nothing to compress yet: ${count} messages, all of which are kept as they are (the first and last turns always stay).`;
      }
      return `Nothing was compressed${result.reason ? `: ${result.reason}` : "."}`;
    }
    const after = await this.contextStatus();
    this.view.statusChanged();
    const from = result.tokensBefore ?? before.tokens;
    const to = result.tokensAfter ?? after.tokens;
    return `Compressed: about ${from} → ${to} tokens (${after.percent}% of the context window).`;
  }

  /**
   * What to print on leaving: how to continue the session, when there is one worth continuing
   * (a turn was taken, or a session was resumed: by flag, or later with /resume).
   */
  exitNote(): string | undefined {
    if (this.usage().turns === 0 && !this.flags.resume && !this.flags.continue) return undefined;
    const id = this.current.agent.sessionId;
    return `Session ${id} saved. Continue it with: hermes --resume ${id}`;
  }

  get permissionMode(): PermissionMode {
    return this.current.agent.options.permissions?.mode ?? "ask";
  }

  setMode(mode: PermissionMode): void {
    this.flags.mode = mode;
    const gate = this.current.agent.options.permissions;
    if (gate) gate.mode = mode;
    this.view.statusChanged();
  }

  setYolo(on: boolean): void {
    this.flags.yolo = on;
    this.current.approvals.yolo = on;
    this.view.statusChanged();
  }

  /** Build a new runtime from the flags with `patch` applied, and retire the old one. */
  private async rebuild(patch: Partial<ChatFlags>): Promise<void> {
    const next = { ...this.flags, ...patch };
    for (const key of Object.keys(next) as Array<keyof ChatFlags>) if (next[key] === undefined) delete next[key];
    const runtime = await buildRuntime(next, this.runtimeOptions);
    const old = this.current;
    if (old.agent.options.reasoningEffort) runtime.agent.options.reasoningEffort = old.agent.options.reasoningEffort;
    runtime.approvals.yolo = old.approvals.yolo;
    this.unsubscribe();
    this.current = runtime;
    this.unsubscribe = runtime.agent.on((event) => this.view.agentEvent(event));
    this.background.attach(runtime.background);
    // Later rebuilds start from what this one resolved (a detected local server stays picked).
    this.flags = { ...next, model: runtime.model, provider: runtime.provider };
    if (runtime.baseUrl) this.flags.baseUrl = runtime.baseUrl;
    await this.titler.settled();
    await old.close();
    this.view.statusChanged();
  }

  exit(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    if (this.running) this.current.agent.interrupt("the session is closing");
    this.view.exit();
  }

  get exiting(): boolean {
    return this.closed;
  }

  /** Resolves when background work on the session (its title) is done. */
  settled(): Promise<void> {
    return this.titler.settled();
  }

  /** Wait for the running turn to stop, then release the session store. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) {
      this.current.agent.interrupt("the session is closing");
      await this.running;
    }
    await this.titler.close();
    this.unsubscribe();
    this.background.close();
    await this.current.close();
  }
}
