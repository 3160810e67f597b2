/**
 * `moa.*`: the mixture_of_agents tool's presets. A preset names the reference models that answer
 * a prompt side by side and the aggregator that merges their answers. `moa.presets` is an open
 * mapping: every preset has the fields of `default`, with the same defaults, and `default` is
 * always there (the original's defaults) unless the file defines its own.
 */
import { z } from "../util/schema/index.js";
import { accepts, bool, integerAtLeast, nonEmptyText, numberBetween, section, text } from "./config-fields.js";

export const DEFAULT_MOA_PRESET = "default";

export const DEFAULT_MOA_REFERENCES = [
  { provider: "openai-codex", model: "gpt-5.5" },
  { provider: "openrouter", model: "deepseek/deepseek-v4-pro" },
];

const modelEntry = z.object(
  { provider: nonEmptyText(), model: nonEmptyText() },
  accepts("a mapping with provider and model, such as {provider: openrouter, model: vendor/model}"),
);

const REFERENCE_LIST = "a list of at least one {provider, model} mapping";

const presetSection = section({
  /** The models that each answer the prompt, side by side. */
  reference_models: z
    .array(modelEntry, accepts(REFERENCE_LIST))
    .min(1, accepts(REFERENCE_LIST))
    .default(DEFAULT_MOA_REFERENCES.map((entry) => ({ ...entry }))),
  /** The model that reads their answers and writes the one returned. */
  aggregator: section({
    provider: nonEmptyText().default("openrouter"),
    model: nonEmptyText().default("anthropic/claude-opus-4.8"),
  }),
  reference_temperature: numberBetween(0, 2, 0.6),
  aggregator_temperature: numberBetween(0, 2, 0.4),
  /** Output token cap of each request (references and aggregator). */
  max_tokens: integerAtLeast(1, 4096),
  enabled: bool(true),
});

export type MoaPresetConfig = z.output<typeof presetSection>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Presets a file adds sit beside the built-in `default` instead of replacing it. */
const presetsMap = z
  .preprocess(
    (value) =>
      isPlainObject(value) && !Object.hasOwn(value, DEFAULT_MOA_PRESET)
        ? { [DEFAULT_MOA_PRESET]: {}, ...value }
        : value,
    z.record(z.string(), presetSection, accepts("a mapping of preset names to presets")),
  )
  .prefault({});

const PRESET_NAMES = "settings whose default_preset and active_preset (unless empty) name presets under moa.presets";

export const moaSection = z
  .object(
    {
      /** The preset used when active_preset is empty. */
      default_preset: nonEmptyText().default(DEFAULT_MOA_PRESET),
      /** The preset in use; wins over default_preset ("" = default_preset). */
      active_preset: text(""),
      /** Write each run's prompt, answers and errors as JSON (secrets masked). */
      save_traces: bool(false),
      /** Where traces go ("" = $HERMES_HOME/moa_traces; a relative path is under $HERMES_HOME). */
      trace_dir: text(""),
      presets: presetsMap,
    },
    accepts("a mapping of settings"),
  )
  .refine(
    (moa) =>
      Object.hasOwn(moa.presets, moa.default_preset) &&
      (moa.active_preset === "" || Object.hasOwn(moa.presets, moa.active_preset)),
    accepts(PRESET_NAMES),
  )
  .prefault({});

export type MoaConfig = z.output<typeof moaSection>;
