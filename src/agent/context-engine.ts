/**
 * The seam between the agent loop and whatever keeps its context in bounds. The built-in
 * compressor implements it; a plugin can register another (`context.engine` in config.yaml
 * selects it by name). The driver asks `shouldCompress` with its token count, calls `compress`
 * with the whole prompt (system message first) and adopts the returned messages.
 */
import type { Message } from "../llm/types.js";
import type { CompressionResult, CompressOptions, SummarizeFn } from "./compressor.js";

export type { CompressionResult, CompressOptions, SummarizeFn } from "./compressor.js";

export interface ContextEngine {
  /** The window (tokens) the engine works with; the driver sets it through `recalibrate`. */
  readonly contextLength: number;
  /** A new window (first resolution, or a fallback to another model). */
  recalibrate(contextLength: number, maxTokens?: number | null): void;
  /** Whether a prompt of this many tokens should be compressed now. */
  shouldCompress(promptTokens: number): boolean;
  /** True while recent passes failed or saved too little: automatic compression waits. */
  readonly backedOff: boolean;
  /** `/compress` asks for a pass whatever happened before. */
  resetBackoff(): void;
  /** Returns the new prompt (system message first) or the input with `compressed: false`. */
  compress(messages: readonly Message[], options?: CompressOptions): Promise<CompressionResult>;
}

export interface ContextEngineInput {
  /** The window until the real one is known (then `recalibrate` follows). */
  contextLength: number;
  /** Output tokens reserved for the reply. */
  maxTokens: number | null;
  /** `compression.*` from config.yaml. */
  settings: {
    threshold?: number;
    targetRatio?: number;
    protectFirstN?: number;
    protectLastN?: number;
  };
  /** The auxiliary-model call the built-in compressor summarises with. */
  summarize: SummarizeFn;
}

export type ContextEngineFactory = (input: ContextEngineInput) => ContextEngine;
