/**
 * The Agent: a tool-calling loop over any provider. `runConversation` follows the turn
 * lifecycle — sanitize input, reuse the session's system prompt, recall memory, compress when
 * the context is filling up, call the model with recovery, validate and run tool calls, loop —
 * and persists each message as soon as it is final.
 */

import type { ContentPart, Message, ToolCall } from "../llm/types.js";
import type { MemoryStore } from "../state/memory-store.js";
import { sessionIdNew } from "../state/titles.js";
import { writeTrajectory } from "../state/trajectories.js";
import { planModeNote } from "../tools/permissions/gate.js";
import type { ToolContext } from "../tools/registry.js";
import { type PublishedTools, publishTools, schemaTokens } from "../tools/tool-search.js";
import { log } from "../util/log.js";
import { monotonicMs } from "../util/monotonic.js";
import { IterationBudget } from "./budget.js";
import { checkpointBefore } from "./checkpointing.js";
import { effectiveThreshold } from "./compression/codex-autoraise.js";
import {
  CompressionDriver,
  type CompressionSettings,
  type CompressionTrigger,
  type PromptState,
  summarizeWithRoute,
} from "./compression-driver.js";
import type { CompressionResult } from "./compressor.js";
import { AgentEmitter, type AgentListener } from "./events.js";
import { ToolGuardrails } from "./guardrails.js";
import { repairHistory, sanitizeUserText, textOf } from "./history.js";
import { interruptedCallNote } from "./interruption.js";
import {
  BUDGET_SUMMARY_NUDGE,
  CONTINUE_NUDGE,
  EMPTY_REPLY_NUDGE,
  GUARDRAIL_NUDGE,
  MAX_CONTINUATIONS,
} from "./loop-text.js";
import type { MemoryManager } from "./memory-manager.js";
import { stripMemoryContext } from "./memory-scrubber.js";
import type { ModelRoute } from "./model-call.js";
import { type AgentOptions, type FinishedTurn, resolveRoutes, resolveToolNames } from "./options.js";
import type { RunOptions, RunResult } from "./run-types.js";
import {
  buildSessionPrompt,
  resolveMemory,
  sessionPromptInput,
  withCompactionNote,
  withRecalledMemory,
} from "./session-prompt.js";
import { SessionRecorder } from "./session-recorder.js";
import { type PromptLayer, systemPromptLayers, withEphemeralLayer } from "./system-prompt.js";
import { runToolBatch } from "./tool-batch.js";
import { TurnCaller } from "./turn-caller.js";
import { isTurnNote, splitAtTurnNotes, TurnChecks } from "./turn-checks.js";

export type { AgentOptions } from "./options.js";
export type { RunOptions, RunResult } from "./run-types.js";

function asParts(content: Message["content"]): ContentPart[] {
  if (content === null) return [];
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** The stored user message: sanitized text (or parts), after any steering notes. */
function userContent(prefix: string, input: string | ContentPart[]): string | ContentPart[] {
  if (typeof input === "string") return prefix + sanitizeUserText(input);
  const parts = input.map((part) =>
    part.type === "text" ? { type: "text" as const, text: sanitizeUserText(part.text) } : part,
  );
  return prefix ? [{ type: "text", text: prefix }, ...parts] : parts;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || (error as { kind?: string }).kind === "abort");
}

function stopReasonOf(run: {
  interrupted: boolean;
  error: string | undefined;
  completed: boolean;
  budgetSummary: boolean;
}): RunResult["stopReason"] {
  if (run.interrupted) return "interrupted";
  if (run.error) return "error";
  if (run.completed) return "completed";
  return run.budgetSummary ? "budget" : "error";
}

let tasksStarted = 0;

/** Names a run's tools (their processes and approvals) when the caller gave no task id: unique in the process. */
function taskIdNew(): string {
  tasksStarted += 1;
  return `task-${process.pid}-${tasksStarted}-${Math.random().toString(36).slice(2, 8)}`;
}

export class Agent {
  /** This run's budget: fresh for every run, unless a parent shares its own (subagents). */
  budget: IterationBudget;
  private currentSessionId: string;
  private readonly emitter = new AgentEmitter();
  private readonly guardrails: ToolGuardrails | undefined;
  private readonly recorder: SessionRecorder;
  private readonly memory: MemoryManager | undefined;
  private readonly compression: CompressionDriver;
  private history: Message[] = [];
  private systemPrompt: string | undefined;
  /** A prompt given by the caller; kept as is when compression starts a child session. */
  private promptOverride: string | undefined;
  private routes: ModelRoute[] | undefined;
  private toolNames: string[] | undefined;
  private toolTokens = 0;
  private published: PublishedTools | undefined;
  private controller: AbortController | undefined;
  private turnContext: ToolContext | undefined;
  /** Fenced memory recalled for the current turn; sent with each request, never stored. */
  private recalled = "";
  private pendingSteer: string[] = [];
  /** on_session_start has run for this agent. */
  private sessionAnnounced = false;
  /** The current run's options (per-run callbacks and the ephemeral layer). */
  private runOptions: RunOptions = {};

  constructor(readonly options: AgentOptions) {
    this.currentSessionId = options.sessionId ?? sessionIdNew();
    this.budget = options.iterationBudget ?? new IterationBudget(options.maxIterations ?? 90);
    this.guardrails = options.guardrails === false ? undefined : (options.guardrails ?? new ToolGuardrails());
    this.recorder = new SessionRecorder(options.sessionStore, this.currentSessionId, options.platform ?? "cli");
    this.memory = resolveMemory(options, (message) => this.emitter.emit({ type: "status", kind: "warning", message }));
    this.compression = new CompressionDriver({
      settings: compressionSettingsFor(options),
      window: {
        model: options.model,
        configured: options.contextLength,
        baseUrl: options.baseUrl,
        apiKey: options.apiKey,
      },
      maxTokens: options.maxTokens,
      summarize: options.summarize ?? ((prompt, o) => summarizeWithRoute(this.routes![0]!, this.emitter)(prompt, o)),
      emitter: this.emitter,
      engine: options.contextEngine,
    });
    if (options.onEvent) this.emitter.on(options.onEvent);
  }

  /** The current session; it changes at a compression only when that is not in place (`compression.in_place`). */
  get sessionId(): string {
    return this.currentSessionId;
  }

  /** Subscribe to events; returns the unsubscribe function. */
  on(listener: AgentListener): () => void {
    return this.emitter.on(listener);
  }

  /** Abort the model call and running tools of the current turn. The agent stays usable. */
  interrupt(reason = "interrupted by the user"): void {
    this.controller?.abort(new Error(reason));
  }

  /** Add a note from the user that the model reads with the next tool result. */
  steer(text: string): void {
    const note = text.trim();
    if (note) this.pendingSteer.push(note);
  }

  /** A run is in progress. */
  get running(): boolean {
    return this.controller !== undefined;
  }

  get messages(): readonly Message[] {
    return this.history;
  }

  async chat(message: string): Promise<string> {
    const result = await this.runConversation(message);
    if (result.error && !result.finalResponse) throw new Error(result.error);
    return result.finalResponse;
  }

  /** Compress now (`/compress [focus]`), whatever the thresholds say. Undefined when there is no history yet. */
  async compress(
    focusTopic?: string,
    opts: Pick<RunOptions, "conversationHistory"> = {},
  ): Promise<CompressionResult | undefined> {
    await this.prepareSession(opts);
    if (this.history.length === 0) return undefined;
    return this.compressWith("manual", { focusTopic });
  }

  /** The context window in use: the number compression decides by (configured, known or probed). */
  contextWindow(): Promise<number> {
    return this.compression.windowInUse();
  }

  /** For long-lived surfaces (gateway, API server): the prompt fills 85% of the window. */
  shouldCompressBetweenTurns(): boolean {
    return this.systemPrompt !== undefined && this.compression.shouldCompressBetweenTurns(this.promptState());
  }

  /** Resolve the enabled tools again on the next turn (after `/reload-mcp`); otherwise the list is fixed per session. */
  refreshTools(): void {
    this.toolNames = undefined;
    this.published = undefined;
  }

  /** Run one turn. `input` is the user's text, or text and image parts (vision models). */
  async runConversation(input: string | ContentPart[], opts: RunOptions = {}): Promise<RunResult> {
    const userMessage = textOf(input);
    const runStarted = monotonicMs();
    const { routes, toolNames } = await this.prepareSession(opts);
    log("info", "agent", "run start", {
      session: this.currentSessionId,
      platform: this.options.platform,
      model: routes[0]?.model,
    });
    this.budget = this.options.iterationBudget ?? new IterationBudget(this.options.maxIterations ?? 90);
    const controller = new AbortController();
    this.controller = controller;
    this.runOptions = opts;
    const signal = controller.signal;
    let toolCallCount = 0;

    this.memory?.startTurn();
    this.options.checkpoints?.newTurn();
    const steerPrefix = this.pendingSteer
      .splice(0)
      .map((note) => `[Note from the user: ${note}]\n\n`)
      .join("");
    await this.appendUserMessage(userContent(steerPrefix, input));
    this.recalled = (await this.memory?.recall(userMessage, this.hookFacts())) ?? "";
    const hookContext = await this.options.hooks?.contextForTurn({ ...this.hookFacts(), userMessage });
    // The plan-mode note rides with the turn like recalled memory: the system prompt (and its cache) stays as it is.
    const planNote = this.options.permissions?.mode === "plan" ? `[${planModeNote()}]` : "";
    for (const extra of [hookContext, planNote]) {
      if (extra) this.recalled = this.recalled ? `${this.recalled}\n\n${extra}` : extra;
    }

    const published = this.publishedTools(toolNames);
    const ctx = this.toolContext(opts.taskId ?? taskIdNew(), signal);
    const tools = published.definitions;
    this.toolTokens = schemaTokens(tools);
    this.guardrails?.resetForTurn();

    let nudge: string | undefined;
    let nudged = false;
    let finalResponse = "";
    let completed = false;
    let interrupted = false;
    let budgetSummary = false;
    let error: string | undefined;
    const caller = new TurnCaller({
      routes,
      agent: this.options,
      tools,
      emitter: this.emitter,
      signal,
      messages: (extra) => this.requestMessages(extra),
      compress: async () => this.compression.enabled && (await this.compressWith("overflow", { signal })).compressed,
      onReply: (reply) => this.compression.recordUsage(reply.usage.inputTokens, this.history.length),
      ...(opts.freshReply ? { freshReply: true } : {}),
    });
    const call = (extra: Message[], withTools = true) => caller.call(extra, withTools);
    const checks = new TurnChecks(this.options.turnChecks, {
      platform: this.options.platform,
      home: this.options.home,
    });

    try {
      await this.compressIfNeeded("preflight", signal);
      let iteration = 0;
      for (;;) {
        if (!this.budget.consume()) {
          this.emitter.emit({
            type: "status",
            kind: "budget",
            message: "iteration budget used up; asking for a summary",
          });
          const reply = await call([{ role: "user", content: BUDGET_SUMMARY_NUDGE }], false);
          finalResponse =
            stripMemoryContext(reply.text).trim() || "I ran out of tool iterations before finishing this task.";
          await this.append({ role: "assistant", content: finalResponse, finish_reason: "stop" });
          budgetSummary = true;
          break;
        }
        iteration++;
        const extra: Message[] = nudge ? [{ role: "user", content: nudge }] : [];
        nudge = undefined;
        let reply = await call(extra);

        let text = reply.text;
        for (let n = 0; reply.finish === "length" && !reply.toolCalls.length && text && n < MAX_CONTINUATIONS; n++) {
          reply = await call([
            ...extra,
            { role: "assistant", content: text },
            { role: "user", content: CONTINUE_NUDGE },
          ]);
          text += reply.text;
        }
        text = stripMemoryContext(text);

        if (reply.toolCalls.length > 0) {
          const assistant: Message = { role: "assistant", content: text || null, tool_calls: reply.toolCalls };
          if (reply.reasoning) assistant.reasoning = reply.reasoning;
          if (reply.continuity) assistant.reasoningContinuity = reply.continuity;
          await this.append(assistant);
          toolCallCount += reply.toolCalls.length;
          const halted = await this.runTools(reply.toolCalls, published.callable, ctx, checks);
          this.emitter.emit({ type: "step_end", iteration, toolCalls: reply.toolCalls.length });
          if (reply.toolCalls.every((c) => c.function.name === "execute_code")) this.budget.refund();
          if (halted) nudge = GUARDRAIL_NUDGE;
          await this.compressIfNeeded("tools", signal);
          continue;
        }

        if (!text.trim()) {
          if (reply.finish === "length" && reply.reasoning) {
            error =
              "the model spent its whole output budget on reasoning and gave no answer; raise max_tokens or lower the reasoning effort";
            this.emitter.emit({ type: "status", kind: "warning", message: error });
            break;
          }
          if (!nudged) {
            nudged = true;
            nudge = EMPTY_REPLY_NUDGE;
            continue;
          }
        }
        finalResponse = text;
        const assistant: Message = { role: "assistant", content: text, finish_reason: reply.finish };
        if (reply.reasoning) assistant.reasoning = reply.reasoning;
        if (reply.continuity) assistant.reasoningContinuity = reply.continuity;
        await this.append(assistant);
        const note = checks.afterFinalAnswer(text, {
          model: caller.lastRoute.model,
          apiMode: caller.lastRoute.transport.apiMode,
        });
        if (note) {
          this.emitter.emit({ type: "status", kind: "info", message: note.status });
          await this.append({ role: "user", content: note.message });
          continue;
        }
        completed = true;
        break;
      }
    } catch (caught) {
      if (signal.aborted || isAbort(caught)) {
        interrupted = true;
        this.history = repairHistory(this.history, interruptedCallNote(signal));
      } else {
        error = caught instanceof Error ? caught.message : String(caught);
      }
    } finally {
      this.controller = undefined;
      await this.options.checkpoints?.endTurn();
      this.runOptions = {};
      this.turnContext = undefined;
      this.recalled = "";
      await this.recorder.recordUsage(caller.usage, caller.lastRoute.model);
    }
    if (completed) {
      await this.memory?.finishTurn(userMessage, finalResponse, this.hookFacts());
      const interactive = ctx.interactive ?? false;
      this.options.learning?.turnFinished(this.finishedTurn(userMessage, finalResponse, toolCallCount, interactive));
    }
    await this.options.hooks?.notify("post_llm_call", {
      ...this.hookFacts(),
      userMessage,
      response: finalResponse,
      completed,
      toolCalls: toolCallCount,
    });
    log(error ? "error" : "info", "agent", "run end", {
      session: this.currentSessionId,
      stop: stopReasonOf({ interrupted, error, completed, budgetSummary }),
      api_calls: caller.apiCalls,
      tool_calls: toolCallCount,
      ms: Math.round(monotonicMs() - runStarted),
      error: error?.slice(0, 300),
    });
    if (this.options.saveTrajectories && this.options.home) this.saveTrajectory(completed, caller.lastRoute.model);

    return {
      finalResponse,
      messages: [...this.history],
      sessionId: this.currentSessionId,
      usage: caller.usage,
      apiCalls: caller.apiCalls,
      toolCalls: toolCallCount,
      interrupted,
      completed,
      stopReason: stopReasonOf({ interrupted, error, completed, budgetSummary }),
      model: caller.lastRoute.model,
      provider: caller.lastRoute.provider,
      ...(error ? { error } : {}),
    };
  }

  /** Appends this conversation to the ShareGPT trajectory files; the ephemeral layer is never written. */
  private saveTrajectory(completed: boolean, model: string): void {
    try {
      writeTrajectory(this.options.home!, {
        messages: this.history,
        success: completed,
        model,
        ...(this.systemPrompt ? { systemPrompt: this.systemPrompt } : {}),
        ...(this.options.ephemeralSystemPrompt ? { ephemeral: this.options.ephemeralSystemPrompt } : {}),
      });
    } catch (caught) {
      this.emitter.emit({
        type: "status",
        kind: "warning",
        message: `could not save the trajectory: ${(caught as Error).message}`,
      });
    }
  }

  /** Text of the most recent assistant reply, if any. */
  lastReply(): string {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const message = this.history[i]!;
      if (message.role === "assistant" && message.content) return textOf(message.content);
    }
    return "";
  }

  /** What this session's first request would carry, without starting the session (`hermes prompt-size`). */
  async requestPreview(): Promise<{ layers: PromptLayer[]; published: PublishedTools }> {
    this.toolNames ??= await this.resolveTools();
    const input = await sessionPromptInput(this.options, this.toolNames, this.options.model, this.memory);
    return { layers: systemPromptLayers(input), published: this.publishedTools(this.toolNames) };
  }

  /** Routes, tools, history and the system prompt of the session, resolved once. */
  private async prepareSession(opts: RunOptions): Promise<{ routes: ModelRoute[]; toolNames: string[] }> {
    this.routes ??= await resolveRoutes(this.options);
    this.toolNames ??= await this.resolveTools();
    if (opts.conversationHistory)
      this.history = repairHistory(opts.conversationHistory.filter((m) => m.role !== "system"));
    else if (this.history.length === 0) this.history = repairHistory(await this.recorder.loadHistory());

    if (opts.systemMessage !== undefined) this.systemPrompt = this.promptOverride = opts.systemMessage;
    if (this.systemPrompt === undefined && this.options.systemPrompt !== undefined) {
      this.systemPrompt = this.promptOverride = this.options.systemPrompt;
    }
    this.systemPrompt ??= await this.recorder.storedSystemPrompt();
    this.systemPrompt ??= await this.buildPrompt();
    await this.recorder.start(this.systemPrompt, this.routes[0]!.model);
    if (!this.sessionAnnounced) {
      this.sessionAnnounced = true;
      await this.options.hooks?.notify("on_session_start", {
        ...this.hookFacts(),
        model: this.routes[0]!.model,
        cwd: this.options.cwd ?? process.cwd(),
      });
    }
    if (opts.conversationHistory) await this.recorder.syncHistory(this.history);
    return { routes: this.routes, toolNames: this.toolNames };
  }

  private buildPrompt(): Promise<string> {
    return buildSessionPrompt(this.options, this.toolNames ?? [], this.routes![0]!.model, this.memory);
  }

  /** Enabled tools, plus the tools of an external memory provider (registered on first use). */
  private async resolveTools(): Promise<string[]> {
    const names = await resolveToolNames(this.options);
    await this.memory?.ready();
    const registry = this.options.registry;
    for (const spec of this.memory?.tools() ?? []) {
      if (!registry) break;
      if (!registry.has(spec.name)) registry.register(spec);
      if (!names.includes(spec.name)) names.push(spec.name);
    }
    return names;
  }

  /** The tools each request carries, decided once per session (see tools/tool-search). */
  private publishedTools(toolNames: string[]): PublishedTools {
    const registry = this.options.registry;
    if (!registry) return { definitions: [], hidden: [], callable: toolNames };
    this.published ??= publishTools(registry, toolNames, this.options.toolSchemaBudget ?? 0);
    return this.published;
  }

  private toolContext(taskId: string, signal: AbortSignal): ToolContext {
    const memoryStore = this.memory?.store;
    this.turnContext = {
      cwd: this.options.cwd ?? process.cwd(),
      sessionId: this.currentSessionId,
      taskId,
      signal,
      platform: this.options.platform ?? "cli",
      interactive: this.runOptions.interactive ?? this.options.interactive ?? false,
      services: {
        ...(memoryStore ? { memory: memoryStore } : {}),
        ...(this.memory?.provider ? { memoryProvider: this.memory.provider } : {}),
        iterationBudget: this.budget,
        ...(this.published?.hidden.length ? { hiddenTools: this.published.hidden } : {}),
        ...this.options.services,
      },
    };
    const clarify = this.runOptions.clarify ?? this.options.clarify;
    const requestApproval = this.runOptions.requestApproval ?? this.options.requestApproval;
    if (clarify) this.turnContext.clarify = clarify;
    if (requestApproval) this.turnContext.requestApproval = requestApproval;
    return this.turnContext;
  }

  private requestMessages(extra: Message[]): Message[] {
    const ephemeral = [
      this.options.ephemeralSystemPrompt,
      this.options.personality?.prompt,
      this.runOptions.ephemeralSystemPrompt,
    ]
      .filter(Boolean)
      .join("\n\n");
    const system = withEphemeralLayer(this.systemPrompt ?? "", ephemeral || undefined);
    // Recalled memory stays on the user's message when the turn checks add notes after it.
    const [turn, notes] = splitAtTurnNotes(this.history);
    return [
      { role: "system", content: system },
      ...(this.options.prefillMessages ?? []),
      ...withRecalledMemory(turn, this.recalled),
      ...notes,
      ...extra,
    ];
  }

  private promptState(): PromptState {
    return { systemPrompt: this.systemPrompt ?? "", history: this.history, toolTokens: this.toolTokens };
  }

  private async compressIfNeeded(trigger: "preflight" | "tools", signal: AbortSignal): Promise<void> {
    const result = await this.compression.maybeCompress(this.promptState(), trigger, signal);
    if (result?.compressed) await this.adoptCompressed(result);
  }

  private async compressWith(
    trigger: CompressionTrigger,
    options: { signal?: AbortSignal; focusTopic?: string },
  ): Promise<CompressionResult> {
    const result = await this.compression.run(this.promptState(), trigger, options);
    if (result.compressed) await this.adoptCompressed(result);
    return result;
  }

  /**
   * The compressed messages become the history and the system prompt is rebuilt (the only time
   * it changes). In place (the default) the session keeps its id and archives what was
   * condensed; otherwise the conversation continues in a child session linked to its parent.
   */
  private async adoptCompressed(result: CompressionResult): Promise<void> {
    const { messages } = result;
    // The messages summarised away leave the agent here: memory keeps what it needs from them first.
    await this.memory?.beforeCompress(this.history, this.hookFacts());
    const previousId = this.currentSessionId;
    const messagesBefore = this.history.length;
    const inPlace = this.options.compression?.inPlace ?? true;
    this.history = messages[0]?.role === "system" ? messages.slice(1) : messages;
    this.systemPrompt = withCompactionNote(this.promptOverride ?? (await this.buildPrompt()));
    const model = this.routes![0]!.model;
    if (inPlace) {
      await this.recorder.compactInPlace(this.systemPrompt, model, this.history);
    } else {
      this.currentSessionId = sessionIdNew();
      if (this.turnContext) this.turnContext.sessionId = this.currentSessionId;
      await this.recorder.continueAs(this.currentSessionId, this.systemPrompt, model, this.history);
      this.emitter.emit({
        type: "status",
        kind: "compression",
        message: `continuing in session ${this.currentSessionId} (parent ${previousId})`,
      });
    }
    await this.options.hooks?.notify("on_compress", {
      sessionId: previousId,
      platform: this.options.platform ?? "cli",
      newSessionId: this.currentSessionId,
      inPlace,
      ...(result.summary ? { summary: result.summary } : {}),
      messagesBefore,
      messagesAfter: this.history.length,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
    });
  }

  /** The session's MEMORY.md / USER.md store (for /learn), when memory is on. */
  get memoryStore(): MemoryStore | undefined {
    return this.memory?.store;
  }

  /** The session is over (the surface closes it, evicts it or starts afresh): hooks and memory hear of it. */
  async endSession(reason: string): Promise<void> {
    if (!this.sessionAnnounced) return;
    this.sessionAnnounced = false;
    await this.memory?.endSession(this.history, this.hookFacts());
    await this.options.hooks?.notify("on_session_end", { ...this.hookFacts(), messages: this.history.length, reason });
  }

  private hookFacts(): { sessionId: string; platform: string } {
    return { sessionId: this.currentSessionId, platform: this.options.platform ?? "cli" };
  }

  /** A turn interrupted before any reply leaves a user message last; the next one joins it. */
  private async appendUserMessage(content: string | ContentPart[]): Promise<void> {
    const last = this.history.at(-1);
    await this.recorder.append({ role: "user", content });
    if (last?.role === "user") {
      const joined: ContentPart[] = [...asParts(last.content), { type: "text", text: "\n\n" }, ...asParts(content)];
      const merged = joined.every((part) => part.type === "text") ? textOf(joined) : joined;
      this.history[this.history.length - 1] = { role: "user", content: merged };
    } else {
      this.history.push({ role: "user", content });
    }
  }

  private async append(message: Message): Promise<void> {
    this.history.push(message);
    await this.recorder.append(message);
  }

  private finishedTurn(
    userMessage: string,
    finalResponse: string,
    toolCalls: number,
    interactive: boolean,
  ): FinishedTurn {
    let start = this.history.length - 1;
    while (start > 0 && (this.history[start]!.role !== "user" || isTurnNote(this.history[start]!))) start--;
    const store = this.memory?.store;
    return {
      ...this.hookFacts(),
      interactive,
      userMessage,
      finalResponse,
      toolCalls,
      messages: this.history.slice(start),
      ...(store ? { memory: store, memoryDir: store.dir } : {}),
      announce: (message) => this.emitter.emit({ type: "status", kind: "learning", message }),
    };
  }

  private checkpointBefore(call: { name: string; args: Record<string, unknown>; cwd: string }): Promise<void> {
    const tracker = this.options.checkpoints;
    if (!tracker) return Promise.resolve();
    const turn = this.history.filter((message) => message.role === "user" && !isTurnNote(message)).length;
    return checkpointBefore({ tracker, turn, sessionId: this.currentSessionId }, call);
  }

  private async runTools(
    calls: ToolCall[],
    toolNames: string[],
    ctx: ToolContext,
    checks: TurnChecks,
  ): Promise<boolean> {
    const batch = await runToolBatch(calls, {
      registry: this.options.registry,
      toolNames,
      ctx,
      emitter: this.emitter,
      guardrails: this.guardrails,
      hooks: this.options.hooks,
      permissions: this.options.permissions,
      ...(this.options.autoApprove ? { autoApprove: true } : {}),
      ...(this.options.checkpoints ? { beforeRun: (call) => this.checkpointBefore(call) } : {}),
      takeSteerNotes: () => this.pendingSteer.splice(0),
    });
    for (const result of batch.results) await this.append(result);
    checks.record(calls, batch.results, ctx.cwd);
    if (ctx.signal.aborted) throw Object.assign(new Error("interrupted"), { name: "AbortError" });
    return batch.halted;
  }
}

/** `compression.*` with the threshold the route calls for (the Codex route's autoraise). */
function compressionSettingsFor(options: AgentOptions): CompressionSettings | undefined {
  const settings = options.compression;
  const threshold = effectiveThreshold(
    settings?.threshold,
    { provider: options.provider, model: options.model },
    settings?.codexAutoraise ?? true,
  );
  return threshold === settings?.threshold ? settings : { ...settings, threshold };
}
