/**
 * The Google credentials Vertex AI requests are signed with, found the way Google's own tools
 * look for them: the file named by VERTEX_CREDENTIALS_PATH, else GOOGLE_APPLICATION_CREDENTIALS,
 * else the Application Default Credentials `gcloud auth application-default login` wrote, else
 * the metadata server of the Google Cloud machine this runs on. A file is a service-account key
 * or an authorized user's refresh token; its contents are never put in an error message.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type Env = Record<string, string | undefined>;

export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
const METADATA_HOST = "metadata.google.internal";

export type GoogleCredentials =
  | {
      type: "service_account";
      clientEmail: string;
      privateKey: string;
      privateKeyId?: string;
      tokenUri: string;
      projectId?: string;
      source: string;
    }
  | {
      type: "authorized_user";
      clientId: string;
      clientSecret: string;
      refreshToken: string;
      tokenUri: string;
      projectId?: string;
      source: string;
    }
  | { type: "metadata"; host: string; source: string };

export class GoogleCredentialsError extends Error {
  override name = "GoogleCredentialsError";
}

/** Where the Application Default Credentials file is (gcloud's configuration directory). */
export function adcPath(env: Env): string {
  const config = env.CLOUDSDK_CONFIG?.trim() || join(env.HOME?.trim() || homedir(), ".config", "gcloud");
  return join(config, "application_default_credentials.json");
}

/** The credentials to use, in Google's order; throws GoogleCredentialsError naming a bad file. */
export function findGoogleCredentials(env: Env): GoogleCredentials {
  for (const name of ["VERTEX_CREDENTIALS_PATH", "GOOGLE_APPLICATION_CREDENTIALS"]) {
    const path = env[name]?.trim();
    if (path) return readCredentialsFile(path, `${path} (${name})`, true);
  }
  const adc = adcPath(env);
  const found = readCredentialsFile(adc, adc, false);
  if (found) return found;
  const host = env.GCE_METADATA_HOST?.trim() || METADATA_HOST;
  return { type: "metadata", host, source: `the metadata server at ${host}` };
}

function readCredentialsFile(path: string, source: string, required: true): GoogleCredentials;
function readCredentialsFile(path: string, source: string, required: false): GoogleCredentials | undefined;
function readCredentialsFile(path: string, source: string, required: boolean): GoogleCredentials | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new GoogleCredentialsError(`cannot read the Google credentials file ${source}: ${(error as Error).message}`);
  }
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new GoogleCredentialsError(`the Google credentials file ${source} is not JSON`);
  }
  const field = (name: string) => (typeof data[name] === "string" && data[name] ? (data[name] as string) : undefined);
  const tokenUri = field("token_uri") ?? GOOGLE_TOKEN_URI;
  if (data.type === "service_account") {
    const clientEmail = field("client_email");
    const privateKey = field("private_key");
    if (!clientEmail || !privateKey) {
      throw new GoogleCredentialsError(`the service-account key ${source} has no client_email or private_key`);
    }
    const projectId = field("project_id");
    const privateKeyId = field("private_key_id");
    return {
      type: "service_account",
      clientEmail,
      privateKey,
      tokenUri,
      source,
      ...(projectId ? { projectId } : {}),
      ...(privateKeyId ? { privateKeyId } : {}),
    };
  }
  if (data.type === "authorized_user") {
    const clientId = field("client_id");
    const clientSecret = field("client_secret");
    const refreshToken = field("refresh_token");
    if (!clientId || !clientSecret || !refreshToken) {
      throw new GoogleCredentialsError(
        `the credentials ${source} lack client_id, client_secret or refresh_token: run \`gcloud auth application-default login\` again`,
      );
    }
    const projectId = field("quota_project_id");
    return {
      type: "authorized_user",
      clientId,
      clientSecret,
      refreshToken,
      tokenUri,
      source,
      ...(projectId ? { projectId } : {}),
    };
  }
  throw new GoogleCredentialsError(
    `the Google credentials file ${source} is of type ${JSON.stringify(data.type ?? null)}; ` +
      'a service-account key ("service_account") or application default credentials ("authorized_user") is needed',
  );
}
