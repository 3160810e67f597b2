/**
 * `mixture_of_agents` (toolset `moa`): a hard question goes to several reference models at once,
 * and an aggregator model merges their answers into the one returned. Presets (`moa.*`) name the
 * models; the runtime injects the backend that reaches them. The run code loads on the first call.
 */
import { z } from "../../util/schema/index.js";
import type { MoaRun } from "../moa/run.js";
import { type MoaBackend, MoaSetupError } from "../moa/types.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export interface MoaToolOptions {
  /** Resolves presets and sends requests (the runtime's); without it every call fails. */
  backend?: MoaBackend;
  /** `moa.save_traces`: the folder each run's trace is written to. */
  traceDir?: string;
}

export const mixtureOfAgentsParameters = z.object({
  prompt: z
    .string()
    .min(1)
    .describe("The whole question or problem with every bit of context needed: the models see nothing else"),
  preset: z.string().optional().describe("A preset under moa.presets (default: the configured one)"),
});

export type MixtureOfAgentsArgs = z.infer<typeof mixtureOfAgentsParameters>;

const failure = (error: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ success: false, error, ...extra });

export async function mixtureOfAgentsTool(
  args: MixtureOfAgentsArgs,
  ctx: Pick<ToolContext, "signal" | "progress">,
  options: MoaToolOptions = {},
): Promise<string> {
  const backend = options.backend;
  if (!backend) return failure("mixture_of_agents is not set up in this process.");
  const prompt = args.prompt.trim();
  if (!prompt) return failure("prompt is empty: give the question with all the context it needs.");
  const { describeError, runMixture } = await import("../moa/run.js");
  let plan: ReturnType<MoaBackend["plan"]>;
  try {
    plan = backend.plan(args.preset?.trim() || undefined);
  } catch (error) {
    if (error instanceof MoaSetupError) return failure(error.message);
    return failure(`mixture_of_agents could not start: ${describeError(error)}`);
  }
  ctx.progress?.(`asking ${plan.references.length} models, then ${plan.aggregator.label}`);
  const run = await runMixture(prompt, plan, backend, ctx.signal);
  const traced = options.traceDir ? await saveTrace(options.traceDir, run) : {};
  const failed = run.failed.length > 0 ? { failed_models: run.failed } : {};
  if (run.answer === undefined) return failure(run.error ?? "no answer", { ...failed, ...traced });
  return JSON.stringify({
    success: true,
    preset: run.preset,
    response: run.answer,
    models_used: {
      references: run.references.filter((step) => step.answer !== undefined).map((step) => step.model),
      aggregator: plan.aggregator.label,
    },
    ...failed,
    ...traced,
  });
}

async function saveTrace(dir: string, run: MoaRun): Promise<Record<string, string>> {
  const { writeMoaTrace } = await import("../moa/trace.js");
  try {
    return { trace_file: writeMoaTrace(dir, run) };
  } catch (error) {
    return { trace_error: `the trace could not be written to ${dir}: ${(error as Error).message}` };
  }
}

export function registerMoaTools(registry: ToolRegistry, options: MoaToolOptions = {}): void {
  registry.register({
    name: "mixture_of_agents",
    toolset: "moa",
    description:
      "Put a hard question (tricky reasoning, maths, algorithms, design trade-offs) to several strong models at once " +
      "and have another model merge their answers into one. Slow and costly: use it when a second opinion is worth it. " +
      "Returns JSON {success, response, models_used, failed_models}.",
    parameters: mixtureOfAgentsParameters,
    handler: (args, ctx) => mixtureOfAgentsTool(args, ctx, options),
    check: () => {
      try {
        return options.backend?.available() ?? false;
      } catch {
        return false;
      }
    },
    parallelSafe: true,
    untrustedOutput: true,
    emoji: "🧠",
  });
}
