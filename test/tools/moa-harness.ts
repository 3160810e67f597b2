/** Shared set-up of the mixture_of_agents tests: a config, an environment and the fake provider. */

import { moaToolOptions } from "../../src/runtime/moa.js";
import { validateConfig } from "../../src/state/config-validate.js";
import { type MixtureOfAgentsArgs, mixtureOfAgentsTool } from "../../src/tools/builtin/moa.js";
import type { RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export const OPENROUTER_KEY = "sk-or-v1-0123456789abcdef0123456789abcdef";
export const DEEPSEEK_KEY = "sk-deepseek-0123456789abcdef01234567";

/** Two references on two providers and an aggregator, all served by the fake at `url`. */
export function presetConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    moa: {
      presets: {
        default: {
          reference_models: [
            { provider: "openrouter", model: "ref-a" },
            { provider: "deepseek", model: "ref-b" },
          ],
          aggregator: { provider: "openrouter", model: "agg" },
        },
      },
    },
    ...extra,
  };
}

export function fakeEnv(url: string, overrides: Record<string, string | undefined> = {}) {
  return {
    OPENROUTER_API_KEY: OPENROUTER_KEY,
    OPENROUTER_BASE_URL: `${url}/v1`,
    DEEPSEEK_API_KEY: DEEPSEEK_KEY,
    DEEPSEEK_BASE_URL: `${url}/v1`,
    ...overrides,
  };
}

export function toolOptions(raw: Record<string, unknown>, env: Record<string, string | undefined>, home?: string) {
  const { config } = validateConfig(raw);
  const where = home ?? tempDir("hermes-moa-");
  return { home: where, options: moaToolOptions(config, where, () => env) };
}

export interface ToolAnswer {
  success: boolean;
  error?: string;
  preset?: string;
  response?: string;
  models_used?: { references: string[]; aggregator: string };
  failed_models?: Array<{ model: string; error: string }>;
  trace_file?: string;
}

export async function callMoa(
  options: ReturnType<typeof toolOptions>["options"],
  args: MixtureOfAgentsArgs,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolAnswer> {
  return JSON.parse(await mixtureOfAgentsTool(args, { signal }, options)) as ToolAnswer;
}

export const modelOf = (req: RecordedRequest): string => (req.body?.model as string | undefined) ?? "";
export const systemOf = (req: RecordedRequest): string =>
  (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "system")?.content ?? "";

/** Answers each model by name: `ref-a` says "answer A", ..., the aggregator says "merged". */
export function answerByModel(overrides: Record<string, ScriptedTurn> = {}) {
  return (req: RecordedRequest): ScriptedTurn => {
    const model = modelOf(req);
    return overrides[model] ?? { text: model === "agg" ? "merged" : `answer from ${model}` };
  };
}

/** Resolves once `count` requests have arrived; a bounded wait so a sequential caller fails instead of hanging. */
export function barrier(count: number, limitMs = 10_000) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    async arrive(): Promise<void> {
      arrived += 1;
      if (arrived >= count) open();
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`only ${arrived} of ${count} requests arrived together`)), limitMs);
      });
      try {
        await Promise.race([opened, limit]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
