/**
 * The Agent: a tool-calling loop over any provider. `runConversation` follows the turn
 * lifecycle — sanitize input, reuse the session's system prompt, call the model with recovery,
 * validate and run tool calls, loop — and persists each message as soon as it is final.
 */
import { randomUUID } from "node:crypto";
import type { Message, ToolCall, Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import type { ToolContext } from "../tools/registry.js";
import { IterationBudget } from "./budget.js";
import { AgentEmitter, type AgentListener } from "./events.js";
import { ToolGuardrails } from "./guardrails.js";
import { repairHistory, sanitizeUserText, textOf } from "./history.js";
import { callModel, type ModelRoute } from "./model-call.js";
import { type AgentOptions, resolveRoutes, resolveToolNames } from "./options.js";
import { SessionRecorder } from "./session-recorder.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { runToolCalls } from "./tool-executor.js";
import { prepareToolCalls } from "./tool-validation.js";

export type { AgentOptions } from "./options.js";

export interface RunOptions {
  /** Replaces the built system prompt for this session. */
  systemMessage?: string;
  /** Prior messages (OpenAI-style, without the system prompt) to continue from. */
  conversationHistory?: Message[];
  taskId?: string;
}

export interface RunResult {
  finalResponse: string;
  messages: Message[];
  sessionId: string;
  usage: Usage;
  apiCalls: number;
  toolCalls: number;
  interrupted: boolean;
  /** The loop ended with a final reply (not by the budget, an interrupt or an error). */
  completed: boolean;
  model: string;
  provider: string;
  error?: string;
}

const EMPTY_REPLY_NUDGE =
  "Your last reply had no visible answer. Reply to the user now with your answer in plain text.";
const CONTINUE_NUDGE =
  "Your reply was cut off by the output limit. Continue exactly where it stopped, without repeating.";
const BUDGET_SUMMARY_NUDGE =
  "You have used all tool iterations for this task. Do not call tools. Summarise what you did, what you found, and what is left to do.";
const MAX_CONTINUATIONS = 3;

function addUsage(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  total.cacheReadTokens += more.cacheReadTokens;
  total.cacheWriteTokens += more.cacheWriteTokens;
  total.reasoningTokens += more.reasoningTokens;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || (error as { kind?: string }).kind === "abort");
}

export class Agent {
  readonly sessionId: string;
  readonly budget: IterationBudget;
  private readonly emitter = new AgentEmitter();
  private readonly guardrails: ToolGuardrails | undefined;
  private readonly recorder: SessionRecorder;
  private history: Message[] = [];
  private systemPrompt: string | undefined;
  private routes: ModelRoute[] | undefined;
  private controller: AbortController | undefined;
  private pendingSteer: string[] = [];

  constructor(readonly options: AgentOptions) {
    this.sessionId =
      options.sessionId ?? `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${randomUUID().slice(0, 6)}`;
    this.budget = options.iterationBudget ?? new IterationBudget(options.maxIterations ?? 90);
    this.guardrails = options.guardrails === false ? undefined : (options.guardrails ?? new ToolGuardrails());
    this.recorder = new SessionRecorder(options.sessionStore, this.sessionId, options.platform ?? "cli");
    if (options.onEvent) this.emitter.on(options.onEvent);
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

  get messages(): readonly Message[] {
    return this.history;
  }

  async chat(message: string): Promise<string> {
    const result = await this.runConversation(message);
    if (result.error && !result.finalResponse) throw new Error(result.error);
    return result.finalResponse;
  }

  async runConversation(userMessage: string, opts: RunOptions = {}): Promise<RunResult> {
    const routes = await this.ensureRoutes();
    const primary = routes[0]!;
    const toolNames = await resolveToolNames(this.options);
    const taskId = opts.taskId ?? randomUUID();
    const controller = new AbortController();
    this.controller = controller;
    const usage = emptyUsage();
    let apiCalls = 0;
    let toolCallCount = 0;

    if (opts.conversationHistory)
      this.history = repairHistory(opts.conversationHistory.filter((m) => m.role !== "system"));
    else if (this.history.length === 0) this.history = repairHistory(await this.recorder.loadHistory());
    const systemPrompt = await this.ensureSystemPrompt(opts.systemMessage, toolNames, primary);

    const steerPrefix = this.pendingSteer
      .splice(0)
      .map((note) => `[Note from the user: ${note}]\n\n`)
      .join("");
    await this.appendUserMessage(steerPrefix + sanitizeUserText(userMessage));

    const ctx: ToolContext = {
      cwd: this.options.cwd ?? process.cwd(),
      sessionId: this.sessionId,
      taskId,
      signal: controller.signal,
      platform: this.options.platform ?? "cli",
      interactive: this.options.interactive ?? false,
      services: this.options.services ?? {},
      ...(this.options.clarify ? { clarify: this.options.clarify } : {}),
      ...(this.options.requestApproval ? { requestApproval: this.options.requestApproval } : {}),
    };
    const tools = this.options.registry?.definitions(toolNames) ?? [];
    this.guardrails?.resetForTurn();

    let nudge: string | undefined;
    let nudged = false;
    let finalResponse = "";
    let completed = false;
    let interrupted = false;
    let error: string | undefined;
    let lastRoute = primary;

    const request =
      (extra: Message[], withTools = true) =>
      (route: ModelRoute) => ({
        model: route.model,
        messages: [{ role: "system" as const, content: systemPrompt }, ...this.history, ...extra],
        ...(withTools && tools.length ? { tools } : {}),
        ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
        ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
        ...(this.options.reasoningEffort ? { reasoningEffort: this.options.reasoningEffort } : {}),
      });
    const call = async (extra: Message[], withTools = true) => {
      apiCalls++;
      this.emitter.emit({ type: "thinking", state: "start" });
      try {
        const result = await callModel(routes, request(extra, withTools), {
          signal: controller.signal,
          emitter: this.emitter,
          retry: this.options.retry ?? {},
        });
        addUsage(usage, result.reply.usage);
        lastRoute = result.route;
        return result.reply;
      } finally {
        this.emitter.emit({ type: "thinking", state: "stop" });
      }
    };

    try {
      let iteration = 0;
      for (;;) {
        if (!this.budget.consume()) {
          this.emitter.emit({
            type: "status",
            kind: "budget",
            message: "iteration budget used up; asking for a summary",
          });
          const reply = await call([{ role: "user", content: BUDGET_SUMMARY_NUDGE }], false);
          finalResponse = reply.text.trim() || "I ran out of tool iterations before finishing this task.";
          await this.append({ role: "assistant", content: finalResponse, finish_reason: "stop" });
          break;
        }
        iteration++;
        const extra: Message[] = nudge ? [{ role: "user", content: nudge }] : [];
        nudge = undefined;
        let reply = await call(extra);

        let text = reply.text;
        for (
          let n = 0;
          reply.finish === "length" && reply.toolCalls.length === 0 && text && n < MAX_CONTINUATIONS;
          n++
        ) {
          reply = await call([
            ...extra,
            { role: "assistant", content: text },
            { role: "user", content: CONTINUE_NUDGE },
          ]);
          text += reply.text;
        }

        if (reply.toolCalls.length > 0) {
          const assistant: Message = { role: "assistant", content: text || null, tool_calls: reply.toolCalls };
          if (reply.reasoning) assistant.reasoning = reply.reasoning;
          if (reply.continuity) assistant.reasoningContinuity = reply.continuity;
          await this.append(assistant);
          toolCallCount += reply.toolCalls.length;
          const halted = await this.runTools(reply.toolCalls, toolNames, ctx);
          this.emitter.emit({ type: "step_end", iteration, toolCalls: reply.toolCalls.length });
          if (reply.toolCalls.every((c) => c.function.name === "execute_code")) this.budget.refund();
          if (halted) {
            nudge = "A tool-loop guardrail stopped further tool calls. Reply to the user with what you have.";
          }
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
        completed = true;
        break;
      }
    } catch (caught) {
      if (controller.signal.aborted || isAbort(caught)) {
        interrupted = true;
        this.history = repairHistory(this.history, "[interrupted by the user]");
      } else {
        error = caught instanceof Error ? caught.message : String(caught);
      }
    } finally {
      this.controller = undefined;
      await this.recorder.recordUsage(usage, lastRoute.model);
    }

    return {
      finalResponse,
      messages: [...this.history],
      sessionId: this.sessionId,
      usage,
      apiCalls,
      toolCalls: toolCallCount,
      interrupted,
      completed,
      model: lastRoute.model,
      provider: lastRoute.provider,
      ...(error ? { error } : {}),
    };
  }

  /** A turn interrupted before any reply leaves a user message last; the next one joins it. */
  private async appendUserMessage(content: string): Promise<void> {
    const last = this.history.at(-1);
    await this.recorder.append({ role: "user", content });
    if (last?.role === "user") {
      this.history[this.history.length - 1] = { role: "user", content: `${textOf(last.content)}\n\n${content}` };
    } else {
      this.history.push({ role: "user", content });
    }
  }

  private async append(message: Message): Promise<void> {
    this.history.push(message);
    await this.recorder.append(message);
  }

  private async runTools(calls: ToolCall[], toolNames: string[], ctx: ToolContext): Promise<boolean> {
    const registry = this.options.registry;
    const prepared = registry
      ? prepareToolCalls(calls, registry, toolNames)
      : calls.map((call) => ({ call, rejection: "Error: no tools are available in this session." }));
    const outcome = await runToolCalls(prepared, {
      ctx,
      emitter: this.emitter,
      ...(this.guardrails ? { guardrails: this.guardrails } : {}),
    });
    const steer = this.pendingSteer.splice(0);
    for (const [i, call] of calls.entries()) {
      let content = outcome.results[i] ?? "";
      if (i === calls.length - 1 && steer.length) {
        content += steer.map((note) => `\n\n[Note from the user, sent while you were working: ${note}]`).join("");
      }
      await this.append({ role: "tool", tool_call_id: call.id, name: call.function.name, content });
    }
    if (ctx.signal.aborted) throw Object.assign(new Error("interrupted"), { name: "AbortError" });
    return outcome.halted;
  }

  private async ensureRoutes(): Promise<ModelRoute[]> {
    this.routes ??= await resolveRoutes(this.options);
    return this.routes;
  }

  private async ensureSystemPrompt(
    override: string | undefined,
    toolNames: string[],
    route: ModelRoute,
  ): Promise<string> {
    if (override !== undefined) this.systemPrompt = override;
    this.systemPrompt ??= this.options.systemPrompt ?? (await this.recorder.storedSystemPrompt());
    if (this.systemPrompt === undefined) {
      this.systemPrompt = buildSystemPrompt({
        cwd: this.options.cwd ?? process.cwd(),
        toolNames,
        ...(this.options.home ? { home: this.options.home } : {}),
        ...(this.options.platform ? { platform: this.options.platform } : {}),
        ...(this.options.memorySnapshot ? { memorySnapshot: this.options.memorySnapshot } : {}),
      });
    }
    await this.recorder.start(this.systemPrompt, route.model);
    return this.systemPrompt;
  }

  /** Text of the most recent assistant reply, if any. */
  lastReply(): string {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const message = this.history[i]!;
      if (message.role === "assistant" && message.content) return textOf(message.content);
    }
    return "";
  }
}
