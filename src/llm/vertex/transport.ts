/**
 * Google Vertex AI (provider `vertex`): Gemini models through Vertex's OpenAI-compatible
 * chat-completions endpoint, signed with a short-lived OAuth2 token instead of an API key.
 * The project is VERTEX_PROJECT_ID, else `vertex.project_id`, else the credentials' own project
 * (else GOOGLE_CLOUD_PROJECT); the region VERTEX_REGION, else `vertex.region`, else `global`.
 * An explicit base URL replaces the computed endpoint (a private endpoint, a proxy). A request
 * the API refuses with 401 before anything streamed is sent once more with a new token, so a
 * long-lived gateway outlives each token's hour.
 */
import { LlmError } from "../errors.js";
import { CREDENTIALS_CODE } from "../failure-cause.js";
import { createChatCompletionsTransport } from "../transports/chat-completions.js";
import type { TransportOptions } from "../transports/common.js";
import type { LlmEvent, LlmRequest, Transport } from "../types.js";
import { type Env, findGoogleCredentials, type GoogleCredentials, type GoogleCredentialsError } from "./credentials.js";
import { vertexDefaults } from "./defaults.js";
import { GoogleTokenError, GoogleTokenSource } from "./token-source.js";

/** Vertex's OpenAI-compatible endpoint for a project and region (`global` has no region prefix). */
export function vertexBaseUrl(projectId: string, region: string): string {
  const host = region === "global" ? "aiplatform.googleapis.com" : `${region}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${encodeURIComponent(projectId)}/locations/${encodeURIComponent(region)}/endpoints/openapi`;
}

/** Vertex names models by publisher ("google/gemini-2.5-flash"); a bare Gemini name gets "google/". */
export function vertexModelName(model: string): string {
  return model.includes("/") ? model : `google/${model}`;
}

/**
 * Where requests go: the explicit base URL, else the endpoint of the project (VERTEX_PROJECT_ID,
 * `vertex.project_id`, the credentials' project, GOOGLE_CLOUD_PROJECT) in the region
 * (VERTEX_REGION, `vertex.region`, `global`).
 */
export function vertexEndpoint(
  env: Env,
  credentials: GoogleCredentials,
  explicitBaseUrl: string | undefined,
): { baseUrl: string } | { problem: string } {
  if (explicitBaseUrl) return { baseUrl: explicitBaseUrl };
  const defaults = vertexDefaults();
  const projectId =
    env.VERTEX_PROJECT_ID?.trim() ||
    defaults.projectId ||
    ("projectId" in credentials ? credentials.projectId : undefined) ||
    env.GOOGLE_CLOUD_PROJECT?.trim();
  if (!projectId) {
    return {
      problem:
        `no Google Cloud project for Vertex AI (credentials: ${credentials.source}): set vertex.project_id ` +
        "(hermes config set vertex.project_id YOUR_PROJECT) or VERTEX_PROJECT_ID",
    };
  }
  const region = env.VERTEX_REGION?.trim() || defaults.region || "global";
  return { baseUrl: vertexBaseUrl(projectId, region) };
}

interface Connection {
  tokens: GoogleTokenSource;
  inner: Transport;
}

export function createVertexTransport(options: TransportOptions): Transport {
  const env: Env = options.env ?? process.env;
  let connection: Connection | undefined;
  const context = { provider: options.provider ?? "vertex" };

  const connect = (model: string): Connection => {
    if (connection) return connection;
    let credentials: ReturnType<typeof findGoogleCredentials>;
    try {
      credentials = findGoogleCredentials(env);
    } catch (error) {
      throw refusal((error as GoogleCredentialsError).message, model);
    }
    const endpoint = vertexEndpoint(env, credentials, options.baseUrl);
    if ("problem" in endpoint) throw refusal(endpoint.problem, model);
    connection = {
      tokens: new GoogleTokenSource(credentials, env),
      inner: createChatCompletionsTransport({ ...options, baseUrl: endpoint.baseUrl, apiKey: undefined }),
    };
    return connection;
  };

  function refusal(message: string, model: string): LlmError {
    return new LlmError(`Vertex AI: ${message}`, {
      kind: "http",
      status: 401,
      code: CREDENTIALS_CODE,
      ...context,
      model,
    });
  }

  async function* stream(req: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const { tokens, inner } = connect(req.model);
    const request = { ...req, model: vertexModelName(req.model) };
    for (let attempt = 0; ; attempt++) {
      let token: string;
      try {
        token = await tokens.token(signal, attempt > 0);
      } catch (error) {
        if (!(error instanceof GoogleTokenError)) throw error;
        if (error.refused) throw refusal(error.message, req.model);
        throw new LlmError(`Vertex AI: ${error.message}`, {
          kind: "network",
          ...context,
          model: req.model,
          cause: error,
        });
      }
      let streamed = false;
      try {
        for await (const event of inner.stream(
          { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } },
          signal,
        )) {
          streamed = true;
          yield event;
        }
        return;
      } catch (error) {
        // An expired or revoked token: one more try with a new one.
        if (attempt === 0 && !streamed && error instanceof LlmError && error.status === 401) continue;
        throw error;
      }
    }
  }

  return { apiMode: "chat_completions", stream };
}
