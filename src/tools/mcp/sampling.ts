/**
 * Answering one MCP server's `sampling/createMessage` requests with the client's model, under
 * that server's limits (`mcp_servers.<name>.sampling`): requests per minute, requests at once,
 * output tokens, time. Refusals are JSON-RPC errors with a reason the server can show. The log
 * gets one line per request with sizes and the model, never the prompt or the answer.
 */
import { type LogLevel, log } from "../../util/log.js";
import { redactSecrets } from "../../util/redact.js";
import {
  type CreateMessageParams,
  chooseModel,
  refuseUnsupported,
  type SamplingModel,
  SamplingRefused,
  type SamplingRequest,
  samplingMessages,
} from "./sampling-request.js";
import type { McpSdk } from "./sdk.js";
import type { McpSamplingSettings } from "./settings.js";

export const DEFAULT_SAMPLING_MAX_TOKENS_CAP = 4096;
export const DEFAULT_SAMPLING_TIMEOUT_SECONDS = 30;
export const DEFAULT_SAMPLING_MAX_RPM = 10;
export const DEFAULT_SAMPLING_MAX_CONCURRENT = 2;

const WINDOW_MS = 60_000;

/** JSON-RPC error codes used for refusals (the SDK's ErrorCode values). */
export const SAMPLING_ERROR = { invalidRequest: -32600, internalError: -32603, requestTimeout: -32001 } as const;

/** A refusal or failure as the JSON-RPC error sent back to the server. */
export class SamplingError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "SamplingError";
  }
}

/** The result shape of `sampling/createMessage` (a type alias: the SDK wants an open record). */
export type CreateMessageAnswer = {
  role: "assistant";
  content: { type: "text"; text: string };
  model: string;
  stopReason: string;
};

/** Whether a server gets the sampling capability: on unless its settings turn it off. */
export function samplingEnabled(settings: McpSamplingSettings | undefined): boolean {
  return settings?.enabled !== false;
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === "number" && value > 0 ? value : fallback;
}

function auditLevel(settings: McpSamplingSettings): LogLevel {
  if (settings.log_level === "debug") return "debug";
  return settings.log_level === "warning" ? "warn" : "info";
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactSecrets(text.replace(/\s+/g, " ").trim()).slice(0, 400);
}

export class SamplingGate {
  private readonly accepted: number[] = [];
  private inFlight = 0;

  constructor(
    readonly server: string,
    private readonly settings: McpSamplingSettings,
    private readonly model: SamplingModel,
    private readonly now: () => number = Date.now,
  ) {}

  get maxTokensCap(): number {
    return positive(this.settings.max_tokens_cap, DEFAULT_SAMPLING_MAX_TOKENS_CAP);
  }

  get timeoutSeconds(): number {
    return positive(this.settings.timeout, DEFAULT_SAMPLING_TIMEOUT_SECONDS);
  }

  get maxRpm(): number {
    return positive(this.settings.max_rpm, DEFAULT_SAMPLING_MAX_RPM);
  }

  get maxConcurrent(): number {
    return positive(this.settings.max_concurrent, DEFAULT_SAMPLING_MAX_CONCURRENT);
  }

  /** Answer one request; throws `SamplingError` with the code and reason to send back. */
  async answer(params: CreateMessageParams, cancelled?: AbortSignal): Promise<CreateMessageAnswer> {
    const started = this.now();
    let request: Omit<SamplingRequest, "signal">;
    try {
      refuseUnsupported(params);
      this.admit(started);
      request = {
        server: this.server,
        messages: samplingMessages(params),
        maxTokens: Math.min(params.maxTokens, this.maxTokensCap),
        ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
        ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
        ...(params.stopSequences?.length ? { stopSequences: params.stopSequences } : {}),
        ...this.modelChoice(params),
      };
    } catch (error) {
      throw this.refusal(error);
    }
    this.inFlight++;
    const deadline = AbortSignal.timeout(this.timeoutSeconds * 1000);
    const signal = cancelled ? AbortSignal.any([cancelled, deadline]) : deadline;
    this.audit("sampling request", {
      model: request.model ?? "(sampling model)",
      max_tokens: request.maxTokens,
      messages: request.messages.length,
      include_context: params.includeContext ?? "none",
    });
    try {
      const completion = await this.raceDeadline(this.model({ ...request, signal }), signal, deadline);
      this.audit("sampling answer", {
        model: completion.model,
        stop: completion.stopReason,
        chars: completion.text.length,
        ms: this.now() - started,
      });
      return {
        role: "assistant",
        content: { type: "text", text: completion.text },
        model: completion.model,
        stopReason: completion.stopReason,
      };
    } catch (error) {
      if (deadline.aborted) {
        throw this.failure(
          SAMPLING_ERROR.requestTimeout,
          `no answer within ${this.timeoutSeconds}s (mcp_servers.${this.server}.sampling.timeout)`,
        );
      }
      if (cancelled?.aborted) throw this.failure(SAMPLING_ERROR.internalError, "the server cancelled the request");
      if (error instanceof SamplingRefused) throw this.refusal(error);
      throw this.failure(SAMPLING_ERROR.internalError, `the model failed: ${oneLine(error)}`);
    } finally {
      this.inFlight--;
    }
  }

  /** Rate and concurrency limits; a refused request does not count against the rate. */
  private admit(at: number): void {
    while (this.accepted.length > 0 && (this.accepted[0] ?? 0) <= at - WINDOW_MS) this.accepted.shift();
    if (this.accepted.length >= this.maxRpm) {
      throw new SamplingRefused(
        `rate limit reached: at most ${this.maxRpm} requests per minute (mcp_servers.${this.server}.sampling.max_rpm)`,
      );
    }
    if (this.inFlight >= this.maxConcurrent) {
      throw new SamplingRefused(
        `${this.inFlight} requests are already being answered; at most ${this.maxConcurrent} at once (mcp_servers.${this.server}.sampling.max_concurrent)`,
      );
    }
    this.accepted.push(at);
  }

  private modelChoice(params: CreateMessageParams): { model?: string } {
    const model = chooseModel(this.settings, params);
    const hints = (params.modelPreferences?.hints ?? []).flatMap((hint) => (hint.name ? [hint.name] : []));
    if (!model && hints.length > 0) {
      this.audit("sampling hints not in allowed_models, ignored", { hints: hints.join(",").slice(0, 200) }, "debug");
    }
    return model ? { model } : {};
  }

  /** Settles with the model's answer, or rejects as soon as the signal fires (a stuck model is not awaited). */
  private raceDeadline<T>(work: Promise<T>, signal: AbortSignal, deadline: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(deadline.aborted ? new Error("timeout") : new Error("cancelled"));
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private refusal(error: unknown): SamplingError {
    if (error instanceof SamplingError) return error;
    if (error instanceof SamplingRefused) return this.failure(SAMPLING_ERROR.invalidRequest, oneLine(error));
    return this.failure(SAMPLING_ERROR.internalError, oneLine(error));
  }

  private failure(code: number, reason: string): SamplingError {
    const outcome = code === SAMPLING_ERROR.invalidRequest ? "refused" : "failed";
    log("warn", "mcp", `sampling ${outcome}`, { server: this.server, code, reason });
    return new SamplingError(code, `Sampling request from MCP server "${this.server}" ${outcome}: ${reason}`);
  }

  private audit(message: string, fields: Record<string, string | number>, level = auditLevel(this.settings)): void {
    log(level, "mcp", message, { server: this.server, ...fields });
  }
}

/** The gate as the SDK's request handler: a `SamplingError` becomes the JSON-RPC error it names. */
export function samplingRequestHandler(gate: SamplingGate, sdk: McpSdk) {
  return async (
    request: { params: CreateMessageParams },
    extra: { signal: AbortSignal },
  ): Promise<CreateMessageAnswer> => {
    try {
      return await gate.answer(request.params, extra.signal);
    } catch (error) {
      if (error instanceof SamplingError) throw new sdk.McpError(error.code, error.message);
      throw error;
    }
  };
}
