/**
 * `hermes doctor` for Google Vertex AI: which Google credentials would sign the requests, and
 * whether Google hands out an access token for them (Vertex has no API key to check).
 */
import type { CheckResult } from "./doctor.js";

export async function vertexChecks(env: Record<string, string | undefined>, timeoutMs: number): Promise<CheckResult[]> {
  const [{ findGoogleCredentials }, { GoogleTokenSource }] = await Promise.all([
    import("../../llm/vertex/credentials.js"),
    import("../../llm/vertex/token-source.js"),
  ]);
  let credentials: ReturnType<typeof findGoogleCredentials>;
  try {
    credentials = findGoogleCredentials(env);
  } catch (error) {
    return [
      {
        name: "credentials",
        ok: false,
        essential: true,
        detail: (error as Error).message,
        hint: "point VERTEX_CREDENTIALS_PATH at a service-account key file, or run `gcloud auth application-default login`",
      },
    ];
  }
  const detail =
    credentials.type === "metadata"
      ? `no key file or gcloud login; on Google Cloud, the machine's service account (${credentials.source})`
      : `${credentials.type.replace("_", " ")} from ${credentials.source}`;
  const results: CheckResult[] = [{ name: "credentials", ok: true, essential: true, detail }];
  try {
    await new GoogleTokenSource(credentials, env).token(AbortSignal.timeout(timeoutMs));
    results.push({ name: "reachable", ok: true, essential: true, detail: "Google issued an access token" });
  } catch (error) {
    results.push({
      name: "reachable",
      ok: false,
      essential: true,
      detail: (error as Error).message,
      hint: "check the key or login, and that this machine can reach oauth2.googleapis.com",
    });
  }
  return results;
}
