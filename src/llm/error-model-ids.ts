/**
 * Explains a content-free 404. NVIDIA NIM answers a model id that lost its `vendor/` prefix
 * with a bare "404 page not found"; when the provider's curated list holds the same id with a
 * vendor in front, the configured id is wrong and retrying cannot help. Ids the list does
 * not know (a local NIM container, a proxy's own name) prove nothing and stay unexplained.
 */

/** Curated, vendor-prefixed model ids per provider, as the provider's own API names them. */
const PREFIXED_CATALOGUE = new Map<string, readonly string[]>([
  [
    "nvidia",
    [
      "nvidia/nemotron-3-ultra-550b-a55b",
      "nvidia/nemotron-3-super-120b-a12b",
      "nvidia/nemotron-3.5-lightning-30b-a3b",
      "nvidia/nemotron-3-nano-omni-30b-a3b-reasoning",
      "z-ai/glm-5.3",
      "z-ai/glm-5.2",
      "moonshotai/kimi-k2.6",
      "minimaxai/minimax-m3",
    ],
  ],
]);

const PROVIDER_ALIASES = new Map([
  ["nim", "nvidia"],
  ["nvidia-nim", "nvidia"],
]);

/** The catalogue id whose part after the vendor is `model` (so never for an id that has a vendor). */
export function prefixedModelFor(provider: string | undefined, model: string | undefined): string | undefined {
  const bare = model?.trim().toLowerCase();
  const slug = provider?.trim().toLowerCase() ?? "";
  const catalogue = PREFIXED_CATALOGUE.get(PROVIDER_ALIASES.get(slug) ?? slug) ?? [];
  return catalogue.find((id) => id.slice(id.indexOf("/") + 1) === bare);
}
