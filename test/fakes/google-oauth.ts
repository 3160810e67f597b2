/**
 * A local stand-in for Google's OAuth2 token endpoint and a Compute Engine metadata server:
 * it checks a service account's signed JWT against the account's public key (and its issuer,
 * audience and scope), an authorized user's refresh token, or the metadata header, and hands
 * out numbered `ya29.` tokens with the lifetime the test asks for.
 */
import { createVerify, generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TokenGrant {
  kind: "jwt-bearer" | "refresh_token" | "metadata";
  token: string;
  claims?: Record<string, unknown>;
}

export interface FakeGoogleOAuth {
  url: string;
  /** host:port, as GCE_METADATA_HOST takes it. */
  host: string;
  grants: TokenGrant[];
  /** Lifetime of the tokens handed out from now on (seconds). */
  expiresIn: number;
  /** When set, every token request is refused with this OAuth error (HTTP 400). */
  refuseWith: string | undefined;
  /** A service-account key file's contents whose token_uri is this server. */
  serviceAccount(projectId?: string): Record<string, unknown>;
  /** Whether `token` was handed out and is the newest one. */
  isCurrent(token: string): boolean;
  close(): Promise<void>;
}

export const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
    });
    req.on("end", () => resolve(text));
  });
}

function verifyJwt(assertion: string, key: KeyObject): Record<string, unknown> | undefined {
  const [header, claims, signature] = assertion.split(".");
  if (!header || !claims || !signature) return undefined;
  const ok = createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(key, Buffer.from(signature, "base64url"));
  return ok ? (JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as Record<string, unknown>) : undefined;
}

export async function startFakeGoogleOAuth(): Promise<FakeGoogleOAuth> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const grants: TokenGrant[] = [];
  let issued = 0;
  const server: Server = createServer(async (req, res) => {
    const text = await body(req);
    const send = (status: number, payload: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    if (fake.refuseWith) return send(400, { error: fake.refuseWith, error_description: "Bad grant" });
    const mint = (kind: TokenGrant["kind"], claims?: Record<string, unknown>) => {
      issued += 1;
      const token = `ya29.fake-access-token-number-${issued}`;
      grants.push({ kind, token, ...(claims ? { claims } : {}) });
      send(200, { access_token: token, expires_in: fake.expiresIn, token_type: "Bearer" });
    };
    if (req.method === "GET" && req.url === "/computeMetadata/v1/instance/service-accounts/default/token") {
      if (req.headers["metadata-flavor"] !== "Google") return send(403, { error: "missing Metadata-Flavor" });
      return mint("metadata");
    }
    if (req.method !== "POST" || req.url !== "/token") return send(404, { error: "not_found" });
    const form = new URLSearchParams(text);
    if (form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      const claims = verifyJwt(form.get("assertion") ?? "", publicKey);
      if (!claims) return send(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
      if (claims.aud !== `${fake.url}/token` || claims.scope !== SCOPE) return send(400, { error: "invalid_scope" });
      return mint("jwt-bearer", claims);
    }
    if (form.get("grant_type") === "refresh_token") {
      if (form.get("refresh_token") !== "1//refresh-token-of-the-test-user-0123456789") {
        return send(400, { error: "invalid_grant" });
      }
      return mint("refresh_token");
    }
    send(400, { error: "unsupported_grant_type" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeGoogleOAuth = {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    grants,
    expiresIn: 3600,
    refuseWith: undefined,
    serviceAccount: (projectId) => ({
      type: "service_account",
      ...(projectId ? { project_id: projectId } : {}),
      private_key_id: "key-1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "hermes-test@example-project.iam.gserviceaccount.com",
      token_uri: `http://127.0.0.1:${port}/token`,
    }),
    isCurrent: (token) => grants.at(-1)?.token === token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
