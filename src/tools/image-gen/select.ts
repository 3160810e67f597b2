/**
 * Which image provider a call uses and with which key: `image_gen.provider` names one, or `auto`
 * takes the first with a key (FAL_KEY, then OPENAI_API_KEY). Light on purpose: the tool's
 * availability check runs it at start-up.
 */
import { type Env, IMAGE_PROVIDERS, type ImageGenSettings, type ImageProviderName } from "./types.js";

export const PROVIDER_KEY: Readonly<Record<ImageProviderName, string>> = {
  fal: "FAL_KEY",
  openai: "OPENAI_API_KEY",
};

export type ProviderChoice = { ok: true; name: ImageProviderName; key: string } | { ok: false; error: string };

function keyOf(name: ImageProviderName, env: Env): string | undefined {
  return env[PROVIDER_KEY[name]]?.trim() || undefined;
}

export function chooseImageProvider(settings: ImageGenSettings, env: Env): ProviderChoice {
  const wanted = settings.provider.trim().toLowerCase() || "auto";
  if (wanted === "auto") {
    for (const name of IMAGE_PROVIDERS) {
      const key = keyOf(name, env);
      if (key) return { ok: true, name, key };
    }
    return {
      ok: false,
      error: "Image generation needs an API key: set FAL_KEY (fal.ai) or OPENAI_API_KEY in ~/.hermes/.env.",
    };
  }
  if (!(IMAGE_PROVIDERS as readonly string[]).includes(wanted)) {
    return { ok: false, error: `image_gen.provider "${wanted}" is not a provider; use auto, fal or openai.` };
  }
  const name = wanted as ImageProviderName;
  const key = keyOf(name, env);
  if (!key) {
    return {
      ok: false,
      error: `image_gen.provider is ${name}, which needs ${PROVIDER_KEY[name]} in ~/.hermes/.env (or set image_gen.provider to auto).`,
    };
  }
  return { ok: true, name, key };
}
