/**
 * One named OpenAI-compatible endpoint from config.yaml (`providers:` / `custom_providers:`): a
 * base URL with its key (literal or from a variable) and models. Read by the config layer and
 * registered with the LLM layer, which may not import each other.
 */
export interface NamedEndpoint {
  name: string;
  baseUrl: string;
  apiKey?: string;
  keyEnv?: string;
  apiMode?: string;
  model?: string;
  models: string[];
}
