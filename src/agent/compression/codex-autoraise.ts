/**
 * ChatGPT's Codex subscription route caps the gpt-5.4/5.5/5.6 and GPT-6 families (Astra included)
 * at a 272K window, so compressing at the usual half of it would throw away room the model can use. On that
 * route alone those models compress at 85% (`compression.codex_gpt55_autoraise`, default true);
 * the `-900k` variants, which unlock a larger window, and every other route keep the threshold.
 */

export const CODEX_AUTORAISE_THRESHOLD = 0.85;

const CAPPED_FAMILIES = /^(gpt-5\.[456]|gpt-6)(?![0-9])/;

/** Whether `model` on `provider` is a route the autoraise applies to. */
export function codexAutoraiseApplies(provider: string | undefined, model: string): boolean {
  if (provider !== "openai-codex") return false;
  const slug = model.toLowerCase().split("/").at(-1) ?? "";
  if (slug.endsWith("-900k")) return false;
  return slug.includes("astra") || CAPPED_FAMILIES.test(slug);
}

/** The threshold compression uses: the configured one, raised on the capped Codex route unless turned off. */
export function effectiveThreshold(
  threshold: number | undefined,
  route: { provider?: string | undefined; model: string },
  autoraise = true,
): number | undefined {
  if (!autoraise || !codexAutoraiseApplies(route.provider, route.model)) return threshold;
  return Math.max(threshold ?? 0, CODEX_AUTORAISE_THRESHOLD);
}
