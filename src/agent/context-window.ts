/**
 * How large the model's context window is, in this order: an explicit setting
 * (`model.context_length` / `contextLength`), the table of well-known models, a probe of a
 * custom or local server, and finally 128k tokens.
 */
import { contextWindowFor, type ProbeOptions, probeContextLength } from "../llm/context-windows.js";

export const DEFAULT_CONTEXT_LENGTH = 128_000;

export type ContextLengthSource = "configured" | "catalog" | "probe" | "default";

export interface ContextLength {
  tokens: number;
  source: ContextLengthSource;
}

export interface ContextLengthInput {
  model: string;
  /** An explicit window in tokens; 0 or undefined means look it up. */
  configured?: number | undefined;
  /** Set for custom and local servers, which are probed when the model is not in the table. */
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

export type ContextProbe = (options: ProbeOptions) => Promise<number | undefined>;

/** The window known without a network call, or undefined when only a probe (or the default) can tell. */
export function knownContextLength(input: ContextLengthInput): ContextLength | undefined {
  if (input.configured && input.configured > 0) return { tokens: Math.floor(input.configured), source: "configured" };
  const known = contextWindowFor(input.model);
  return known ? { tokens: known, source: "catalog" } : undefined;
}

export async function resolveContextLength(
  input: ContextLengthInput,
  probe: ContextProbe = probeContextLength,
  signal?: AbortSignal,
): Promise<ContextLength> {
  const known = knownContextLength(input);
  if (known) return known;
  if (input.baseUrl) {
    const probed = await probe({
      baseUrl: input.baseUrl,
      model: input.model,
      apiKey: input.apiKey,
      ...(signal ? { signal } : {}),
    }).catch(() => undefined);
    if (probed) return { tokens: probed, source: "probe" };
  }
  return { tokens: DEFAULT_CONTEXT_LENGTH, source: "default" };
}
