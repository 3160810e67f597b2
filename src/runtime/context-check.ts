/**
 * Before a session starts: how large is the model's window, is it large enough for the agent,
 * and does a local Ollama server need to be told to load that much (it defaults to a few
 * thousand tokens and silently truncates otherwise)?
 */
import {
  assertMinimumContext,
  ContextTooSmallError,
  contextWindowFor,
  ollamaContextBody,
  type ProbeOptions,
  type ProbeResult,
  probeContextWindow,
} from "../llm/context-windows.js";
import { cachedContextLength, rememberContextLength } from "../state/context-length-cache.js";
import { recentProbeMiss, rememberProbeMiss } from "../state/context-probe-misses.js";
import { UsageError } from "./errors.js";

export interface ContextCheckInput {
  model: string;
  provider: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** `model.context_length`: 0 means look it up. */
  configured: number;
  /** `model.min_context_length`: 0 turns the check off. */
  minimum: number;
  /** The home whose context_length_cache.yaml holds windows learned earlier; none: nothing is kept. */
  home?: string | undefined;
}

export interface ContextCheck {
  /** The window, when the configuration, the catalog or the server told us. */
  contextLength?: number;
  extraBody?: Record<string, unknown>;
  /** The server was asked (whatever it answered), or told us lately that it does not say: nobody needs to ask it again. */
  probed?: boolean;
}

const PROBED_PROVIDERS = new Set(["custom", "lmstudio", "ollama"]);

export async function checkContextWindow(
  input: ContextCheckInput,
  probe: (options: ProbeOptions) => Promise<ProbeResult> = probeContextWindow,
): Promise<ContextCheck> {
  // A window the server reported before (to us, or to the original agent) is more specific than
  // the table's, which goes by the model's name alone.
  const cache = input.home !== undefined && input.baseUrl ? { home: input.home, baseUrl: input.baseUrl } : undefined;
  let tokens =
    input.configured > 0
      ? input.configured
      : ((cache && (await cachedContextLength(cache.home, input.model, cache.baseUrl))) ??
        contextWindowFor(input.model));
  let probed = false;
  if (!tokens && input.baseUrl && PROBED_PROVIDERS.has(input.provider)) {
    probed = true;
    // A server that answered without the window yesterday would cost every run the same requests again.
    if (cache && recentProbeMiss(cache.home, input.model, cache.baseUrl)) return { probed };
    const result = await probe({
      baseUrl: input.baseUrl,
      model: input.model,
      apiKey: input.apiKey,
      timeoutMs: 3000,
    }).catch((): ProbeResult => ({ answered: false }));
    tokens = result.tokens;
    if (cache && tokens) {
      await rememberContextLength(cache.home, input.model, cache.baseUrl, tokens).catch(() => undefined);
    } else if (cache && result.answered) {
      try {
        rememberProbeMiss(cache.home, input.model, cache.baseUrl);
      } catch {
        // A read-only home only means the next run asks again.
      }
    }
  }
  if (!tokens) return probed ? { probed } : {};
  try {
    assertMinimumContext(tokens, { minimum: input.minimum, model: input.model, allowBelowMinimum: input.minimum <= 0 });
  } catch (error) {
    if (error instanceof ContextTooSmallError) {
      throw new UsageError(`${error.message} To run anyway: hermes config set model.min_context_length 0`);
    }
    throw error;
  }
  const extraBody = ollamaContextBody(input.baseUrl, tokens);
  return { contextLength: tokens, ...(extraBody ? { extraBody } : {}), ...(probed ? { probed } : {}) };
}
