/**
 * The models an editor's model picker offers: the one in use, the configured default and
 * fallbacks on the same provider, and what the provider lists (best effort, bounded).
 */
import { resolveProvider } from "../llm/providers.js";
import { listProviderModels } from "../runtime/model-list.js";
import type { HermesRuntime } from "../runtime/runtime.js";

const MAX_LISTED = 50;

export async function offeredModels(runtime: HermesRuntime): Promise<string[]> {
  const models = [runtime.model];
  const configured = runtime.config.model.default;
  if (configured) models.push(configured);
  for (const fallback of runtime.config.fallback_providers) {
    if (resolveProvider(fallback.provider)?.id === runtime.provider) models.push(fallback.model);
  }
  const info = resolveProvider(runtime.provider);
  const listed = info ? await listProviderModels(info, runtime.baseUrl) : undefined;
  models.push(...(listed ?? []).slice(0, MAX_LISTED));
  return [...new Set(models.filter((model) => model.trim()))];
}
