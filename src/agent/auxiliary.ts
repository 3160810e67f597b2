/**
 * The auxiliary client: side tasks (compression summaries, titles, vision, web extraction,
 * session search, smart approvals) run on a cheap model chosen per task from config.yaml
 * (`auxiliary.<task>.provider/model/base_url/api_key/max_tokens/timeout/extra_body`). A provider that refuses for billing
 * hands the task to the next one in the chain; any other failure puts that provider on a
 * cooldown and hands the task to the main model, so a broken side model never blocks a turn.
 */
import { classifyApiError } from "../llm/errors.js";
import { collect } from "../llm/normalize.js";
import { createTransport } from "../llm/providers.js";
import type { FinishReason, Message, Transport } from "../llm/types.js";
import type { AUXILIARY_TASKS, AuxiliaryTaskConfig } from "../state/config-schema.js";
import { type AuxiliaryCandidate, type Env, endpointKey, mainCandidate, resolveChain } from "./auxiliary/chain.js";
import type { SummarizeFn } from "./compression/summary.js";
import type { ModelRoute } from "./recovery/types.js";

export { type AuxiliaryCandidate, DEFAULT_AUXILIARY_MODELS } from "./auxiliary/chain.js";

export type AuxiliaryTask = (typeof AUXILIARY_TASKS)[number];

/** How long a failing auxiliary provider is left alone before it is tried again. */
export const AUXILIARY_COOLDOWN_MS = 10 * 60 * 1000;

export interface AuxiliaryConfig {
  auxiliary?: Partial<Record<AuxiliaryTask, Partial<AuxiliaryTaskConfig>>>;
  model?: { base_url?: string };
}

export interface AuxiliaryClientOptions {
  config: AuxiliaryConfig;
  /** The agent's primary route: first choice under `auto`, and the last resort for every task. */
  mainRoute?: ModelRoute;
  env?: Env;
  /** Epoch milliseconds (injectable for tests). */
  now?: () => number;
  cooldownMs?: number;
  /** Told about every hand-over, in one line each (for status output or logs). */
  onNotice?: (message: string) => void;
  /** Builds a transport for a candidate; defaults to the provider catalog's createTransport. */
  createTransport?: (candidate: AuxiliaryCandidate, env: Env) => Promise<Transport>;
}

export interface CompleteOptions {
  maxTokens?: number;
  signal?: AbortSignal;
  /** Replaces `auxiliary.<task>.model` for this call (the model of the chain's first candidate). */
  model?: string;
  temperature?: number;
  /** Sent where the protocol takes them (see LlmRequest.stopSequences); the Responses API has none. */
  stopSequences?: string[];
  /** A ceiling on the output tokens that no setting raises, `auxiliary.<task>.max_tokens` included. */
  maxTokensCap?: number;
}

/** A reply with the endpoint that wrote it. */
export interface AuxiliaryReply {
  text: string;
  provider: string;
  model: string;
  finish: FinishReason;
}

export interface AuxiliaryCooldown {
  provider: string;
  baseUrl?: string;
  remainingMs: number;
}

export interface AuxiliaryClient {
  /** The reply text of the first candidate that answers. */
  complete(task: AuxiliaryTask, messages: Message[], options?: CompleteOptions): Promise<string>;
  /** Like `complete`, with the provider, model and finish reason of the answer. */
  reply(task: AuxiliaryTask, messages: Message[], options?: CompleteOptions): Promise<AuxiliaryReply>;
  /** Candidates for a task, in the order they would be tried (ignoring cooldowns). */
  candidates(task: AuxiliaryTask): AuxiliaryCandidate[];
  cooldowns(): AuxiliaryCooldown[];
}

export class AuxiliaryError extends Error {
  override name = "AuxiliaryError";
}

const label = (c: AuxiliaryCandidate) => `${c.provider}/${c.model}`;

function defaultTransport(candidate: AuxiliaryCandidate, env: Env): Promise<Transport> {
  return createTransport({
    provider: candidate.provider,
    model: candidate.model,
    ...(candidate.baseUrl ? { baseUrl: candidate.baseUrl } : {}),
    ...(candidate.apiKey ? { apiKey: candidate.apiKey } : {}),
    env,
  });
}

export function createAuxiliaryClient(options: AuxiliaryClientOptions): AuxiliaryClient {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const cooldownMs = options.cooldownMs ?? AUXILIARY_COOLDOWN_MS;
  const build = options.createTransport ?? defaultTransport;
  const notice = options.onNotice ?? (() => {});
  /** Endpoints set aside after a failure; `billing` remembers whether the chain may go on past them. */
  const coolingUntil = new Map<string, { candidate: AuxiliaryCandidate; until: number; billing: boolean }>();
  const transports = new Map<string, Promise<Transport>>();
  const main = options.mainRoute;

  const candidates = (task: AuxiliaryTask, model?: string) =>
    resolveChain({
      task,
      settings: model ? { ...options.config.auxiliary?.[task], model } : options.config.auxiliary?.[task],
      mainRoute: main,
      customBaseUrl: options.config.model?.base_url || undefined,
      env,
    });

  const cooldownOf = (candidate: AuxiliaryCandidate) => {
    const entry = coolingUntil.get(endpointKey(candidate));
    return entry && entry.until > now() ? entry : undefined;
  };

  const transportOf = (candidate: AuxiliaryCandidate): Promise<Transport> => {
    if (candidate.transport) return Promise.resolve(candidate.transport);
    const key = `${endpointKey(candidate)}|${candidate.apiKey ?? ""}`;
    let transport = transports.get(key);
    if (!transport) {
      transport = build(candidate, env);
      transports.set(key, transport);
      transport.catch(() => transports.delete(key));
    }
    return transport;
  };

  async function ask(
    candidate: AuxiliaryCandidate,
    task: AuxiliaryTask,
    messages: Message[],
    opts: CompleteOptions,
  ): Promise<AuxiliaryReply> {
    const settings = options.config.auxiliary?.[task];
    const configured = settings?.max_tokens;
    let maxTokens = configured && configured > 0 ? configured : opts.maxTokens;
    if (opts.maxTokensCap && (!maxTokens || maxTokens > opts.maxTokensCap)) maxTokens = opts.maxTokensCap;
    const timeoutSeconds = settings?.timeout ?? 0;
    const transport = await transportOf(candidate);
    const limit = timeoutSeconds > 0 ? AbortSignal.timeout(timeoutSeconds * 1000) : undefined;
    const signals = [opts.signal, limit].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : (signals[0] ?? new AbortController().signal);
    const request = {
      model: candidate.model,
      messages,
      ...(maxTokens ? { maxTokens } : {}),
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.stopSequences?.length ? { stopSequences: opts.stopSequences } : {}),
      ...(candidate.extraBody ? { extraBody: candidate.extraBody } : {}),
    };
    let reply: Awaited<ReturnType<typeof collect>>;
    try {
      reply = await collect(transport.stream(request, signal));
    } catch (error) {
      if (limit?.aborted && !opts.signal?.aborted) {
        throw new AuxiliaryError(
          `${label(candidate)} did not answer within ${timeoutSeconds}s (auxiliary.${task}.timeout)`,
          { cause: error },
        );
      }
      throw error;
    }
    if (!reply.text.trim()) throw new Error(`${label(candidate)} returned an empty reply`);
    return { text: reply.text, provider: candidate.provider, model: candidate.model, finish: reply.finish };
  }

  async function replyTo(
    task: AuxiliaryTask,
    messages: Message[],
    opts: CompleteOptions = {},
  ): Promise<AuxiliaryReply> {
    let chain: AuxiliaryCandidate[];
    try {
      chain = candidates(task, opts.model);
    } catch (error) {
      if (!main) throw error;
      notice(`${(error as Error).message}; using the main model`);
      chain = [];
    }
    let triedMain = false;
    let lastError: unknown;
    for (const candidate of chain) {
      const cooling = candidate.isMain ? undefined : cooldownOf(candidate);
      // Skipping a cooling endpoint repeats the decision made when it failed.
      if (cooling?.billing) continue;
      if (cooling) break;
      triedMain ||= candidate.isMain;
      try {
        return await ask(candidate, task, messages, opts);
      } catch (error) {
        if (opts.signal?.aborted) throw error;
        lastError = error;
        const classified = classifyApiError(error, { provider: candidate.provider, model: candidate.model });
        const billing = classified.reason === "billing";
        if (!candidate.isMain) {
          coolingUntil.set(endpointKey(candidate), { candidate, until: now() + cooldownMs, billing });
        }
        if (billing) {
          notice(`${task}: ${label(candidate)} refused for billing reasons; trying the next provider`);
          continue;
        }
        notice(`${task}: ${label(candidate)} failed (${classified.reason}); using the main model`);
        break;
      }
    }
    if (main && !triedMain) {
      try {
        return await ask(mainCandidate(main), task, messages, opts);
      } catch (error) {
        lastError = error;
      }
    }
    const why = lastError instanceof Error ? lastError.message : "no provider is available";
    throw new AuxiliaryError(`auxiliary task ${task} failed: ${why}`, { cause: lastError });
  }

  return {
    complete: async (task, messages, opts) => (await replyTo(task, messages, opts)).text,
    reply: replyTo,
    candidates: (task) => candidates(task),
    cooldowns: () => {
      const at = now();
      return [...coolingUntil.values()]
        .filter((entry) => entry.until > at)
        .map(({ candidate, until }) => ({
          provider: candidate.provider,
          ...(candidate.baseUrl ? { baseUrl: candidate.baseUrl } : {}),
          remainingMs: until - at,
        }));
    },
  };
}

/** The auxiliary client shaped as the compressor's summarizer (`ContextCompressorOptions.summarize`). */
export function summarizeWithAuxiliary(client: AuxiliaryClient, task: AuxiliaryTask = "compression"): SummarizeFn {
  return (prompt, { maxTokens, signal }) =>
    client.complete(task, [{ role: "user", content: prompt }], { maxTokens, ...(signal ? { signal } : {}) });
}
