/** The message a user sees when every recovery step has been tried: what failed and what to do next. */
import type { ClassifiedError } from "../../llm/errors.js";
import type { FailureDiagnosis } from "../../llm/failure-cause.js";
import type { ModelRoute } from "./types.js";

const FALLBACK_HINT = "or list backups under fallback_providers in config.yaml";

function formatWait(seconds: number): string {
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

export function abortGuidance(classified: ClassifiedError, route: ModelRoute, diagnosis?: FailureDiagnosis): string {
  const where = `${route.provider}/${route.model}`;
  if (diagnosis) return `${where}: ${diagnosis.words}`;
  switch (classified.reason) {
    case "auth":
    case "auth_permanent":
      return `${where} rejected the credentials: check the API key (hermes auth list / hermes auth status, or the provider's *_API_KEY in .env).`;
    case "billing":
      return `${where} refused for billing reasons: add credits, add another key (hermes auth add ${route.provider}) ${FALLBACK_HINT}.`;
    case "rate_limit":
    case "long_context_tier": {
      const wait = classified.retryAfterSeconds;
      if (wait !== undefined && wait > 120) {
        return `${where} is rate limiting and says the limit lifts in ${formatWait(wait)}: try again then, add a key (hermes auth add ${route.provider}) ${FALLBACK_HINT}.`;
      }
      return `${where} is rate limiting and retries ran out: wait a little, add a key (hermes auth add ${route.provider}) ${FALLBACK_HINT}.`;
    }
    case "overloaded":
    case "server_error":
      return `${where} is failing on the provider's side (${classified.reason.replace(/_/g, " ")}): try again shortly ${FALLBACK_HINT}.`;
    case "timeout":
      if (classified.errorCode === "ECONNREFUSED") {
        return `${where}: nothing is listening at the endpoint (connection refused): start the server, or check --base-url / model.base_url.`;
      }
      return `${where} could not be reached or stopped answering: check the network, proxy settings and base URL, then try again ${FALLBACK_HINT}.`;
    case "context_overflow":
    case "payload_too_large":
      return `the conversation no longer fits ${where}'s context: start a new session (/new) or compress (/compress).`;
    case "image_too_large":
      return `${where} rejected an image as too large: resize it or send a smaller one.`;
    case "model_not_found":
      return `${where} does not know this model: check the model name (hermes model, or model.default in config.yaml).`;
    case "provider_policy_blocked":
      return `${where} is blocked by the account's provider data policy: allow the needed providers in the provider's privacy settings, or pick another model.`;
    case "content_policy_blocked":
      return `${where} refused the request under its content policy: rephrase the request or pick another model.`;
    case "thinking_signature":
    case "invalid_encrypted_content":
      return `${where} rejected the reasoning blocks of earlier turns even after they were removed: start a new session (/new).`;
    case "multimodal_tool_content_unsupported":
      return `${where} accepts only plain text in tool results and refused this request even so: pick another model (/model) ${FALLBACK_HINT}.`;
    case "reasoning_mandatory":
      return `${where} cannot run with reasoning turned off: remove reasoning_effort: none (agent.reasoning_effort in config.yaml) or pick another model.`;
    case "oauth_long_context_beta_forbidden":
      return `${where}: this subscription does not include the 1M-token context beta: use an API key (hermes auth add anthropic) or a model with the standard context.`;
    case "llama_cpp_grammar_pattern":
      return `${where} (llama.cpp) cannot compile a tool schema pattern: update the server or disable the tool's toolset.`;
    case "format_error":
      return `${where} rejected the request as malformed (${classified.message}): try another model, or rerun with --verbose and report it.`;
    default:
      return `${where} failed (${classified.reason}): ${classified.message}`;
  }
}
