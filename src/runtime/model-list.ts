/**
 * The models a provider says it serves (`GET {base}/models`), for checking a name the user
 * typed. Best effort and quick: any failure means "unknown", never an error.
 */
import { httpRequest } from "../llm/http-client.js";
import { apiKeyFromEnv, type ProviderSpec } from "../llm/providers.js";
import { proxyForUrl } from "../llm/proxy.js";
import { modelIdsFrom } from "./local-servers.js";

const LIST_TIMEOUT_MS = 3000;

export async function listProviderModels(
  info: ProviderSpec,
  baseUrl: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[] | undefined> {
  const base = baseUrl ?? info.defaultBaseUrl;
  if (!base || info.apiMode === "bedrock_converse") return undefined;
  const key = apiKeyFromEnv(info, env);
  const url = `${base.replace(/\/+$/, "")}/models`;
  try {
    const response = await httpRequest(url, {
      headers: {
        accept: "application/json",
        ...(key ? { authorization: `Bearer ${key}`, "x-api-key": key } : {}),
        ...(info.apiMode === "anthropic_messages" ? { "anthropic-version": "2023-06-01" } : {}),
      },
      signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
      proxy: proxyForUrl(url, env),
    });
    if (response.status !== 200) {
      response.release();
      return undefined;
    }
    const ids = modelIdsFrom(await response.json());
    return ids.length > 0 ? ids : undefined;
  } catch {
    return undefined;
  }
}
