/** `secrets:` in config.yaml: where secrets come from besides `.env` (see docs/security.md). */
import { z } from "../util/schema/index.js";
import { accepts, bool, integerAtLeast, section } from "./config-fields.js";
import { isEnvVarName } from "./dotenv.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== "";
  } catch {
    return false;
  }
}

const tokenEnvName = z
  .string(accepts("the name of an environment variable such as BWS_ACCESS_TOKEN"))
  .refine(isEnvVarName, {
    error: () => "the name of an environment variable (letters, digits and _, not starting with a digit)",
  })
  .default("BWS_ACCESS_TOKEN");

const projectId = z
  .string(accepts('a Bitwarden project id (a UUID), or "" for every secret the token can read'))
  .refine((value) => value === "" || UUID.test(value), {
    error: () => 'a Bitwarden project id such as 2ad2a4b1-6a6d-4b1e-9c3f-b2f1c0a2e0d4, or "" for every secret',
  })
  .default("");

const serverUrl = z
  .string(accepts('an http(s) URL such as https://vault.bitwarden.eu, or "" for bitwarden.com'))
  .refine((value) => value === "" || isHttpUrl(value), {
    error: () => 'an http(s) URL such as https://vault.bitwarden.eu (with the scheme), or "" for bitwarden.com',
  })
  .default("");

/** Secrets Manager, read through Bitwarden's `bws` command at start-up. */
export const bitwardenSection = section({
  enabled: bool(false),
  /** The environment variable (shell or .env) holding the machine account's access token. */
  access_token_env: tokenEnvName,
  /** Only this project's secrets; "" = every secret the token can read. */
  project_id: projectId,
  /** Seconds the fetched secrets are reused (encrypted under $HERMES_HOME/cache); 0 = fetch every start. */
  cache_ttl_seconds: integerAtLeast(0, 300),
  /** A Bitwarden secret replaces a variable already set (in the shell or .env). */
  override_existing: bool(true),
  /** Accepted for the original's configs; bws is never downloaded here (install it yourself). */
  auto_install: bool(true),
  /** A self-hosted or EU server ("" = bws's own default). */
  server_url: serverUrl,
});

export type BitwardenSettings = z.output<typeof bitwardenSection>;

export const secretsSection = section({ bitwarden: bitwardenSection });
