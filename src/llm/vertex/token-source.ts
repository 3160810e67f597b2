/**
 * Short-lived OAuth2 access tokens for Google Cloud (about an hour each), minted from the
 * credentials found (./credentials.ts): a service account signs a JWT and trades it for a
 * token, an authorized user trades its refresh token, and on a Google Cloud machine the metadata
 * server hands one out. A token is reused until five minutes before it expires; callers asking
 * at the same time share one request. A refusal (a revoked key, a deleted service account)
 * cannot pass by itself and is reported as such, naming where the credentials came from.
 */
import { nodeCrypto } from "../../util/node-crypto.js";
import { raceAbort } from "../../util/race-abort.js";
import { httpRequest } from "../http-client.js";
import { proxyForUrl } from "../proxy.js";
import type { Env, GoogleCredentials } from "./credentials.js";

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** A token this close to its expiry is replaced before use. */
const REFRESH_MARGIN_MS = 5 * 60_000;
const TOKEN_LIFETIME_S = 3600;
const REQUEST_TIMEOUT_MS = 30_000;
/** Off Google Cloud the metadata server does not exist: do not wait long to find out. */
const METADATA_TIMEOUT_MS = 3000;

export class GoogleTokenError extends Error {
  override name = "GoogleTokenError";
  constructor(
    message: string,
    /** The credentials were refused: trying again cannot help. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

interface Minted {
  token: string;
  expiresAt: number;
}

export class GoogleTokenSource {
  private current: Minted | undefined;
  private pending: Promise<Minted> | undefined;

  constructor(
    private readonly credentials: GoogleCredentials,
    private readonly env: Env = process.env,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid access token; `fresh` discards the one in hand (the API just refused it). */
  async token(signal: AbortSignal, fresh = false): Promise<string> {
    if (fresh) this.current = undefined;
    const current = this.current;
    if (current && current.expiresAt - REFRESH_MARGIN_MS > this.now()) return current.token;
    // One request for every caller waiting now; a caller that gives up does not cancel it for the rest.
    this.pending ??= this.mint().finally(() => {
      this.pending = undefined;
    });
    const minted = await raceAbort(this.pending, signal);
    this.current = minted;
    return minted.token;
  }

  private async mint(): Promise<Minted> {
    const creds = this.credentials;
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    if (creds.type === "metadata") {
      const url = `http://${creds.host}/computeMetadata/v1/instance/service-accounts/default/token`;
      const quick = AbortSignal.timeout(METADATA_TIMEOUT_MS);
      try {
        return await this.exchange(url, { method: "GET", headers: { "metadata-flavor": "Google" }, signal: quick });
      } catch (error) {
        if (error instanceof GoogleTokenError && error.refused) throw error;
        // Not on Google Cloud: there were no credentials to begin with.
        throw new GoogleTokenError(
          "no Google credentials found: set VERTEX_CREDENTIALS_PATH (or GOOGLE_APPLICATION_CREDENTIALS) to a " +
            "service-account key file, or run `gcloud auth application-default login`; " +
            `${creds.source} did not answer either`,
          true,
        );
      }
    }
    const form: Record<string, string> =
      creds.type === "service_account"
        ? {
            grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            assertion: this.signedAssertion(creds),
          }
        : {
            grant_type: "refresh_token",
            client_id: creds.clientId,
            client_secret: creds.clientSecret,
            refresh_token: creds.refreshToken,
          };
    return this.exchange(creds.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      signal: timeout,
    });
  }

  /** A JWT the service account signs (RS256) to ask for a cloud-platform token. */
  private signedAssertion(creds: Extract<GoogleCredentials, { type: "service_account" }>): string {
    const issuedAt = Math.floor(this.now() / 1000);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const header = part({ alg: "RS256", typ: "JWT", ...(creds.privateKeyId ? { kid: creds.privateKeyId } : {}) });
    const claims = part({
      iss: creds.clientEmail,
      scope: CLOUD_PLATFORM_SCOPE,
      aud: creds.tokenUri,
      iat: issuedAt,
      exp: issuedAt + TOKEN_LIFETIME_S,
    });
    let signature: string;
    try {
      signature = nodeCrypto()
        .sign("RSA-SHA256", Buffer.from(`${header}.${claims}`), creds.privateKey)
        .toString("base64url");
    } catch {
      throw new GoogleTokenError(`the private_key in ${creds.source} is not a usable RSA key`, true);
    }
    return `${header}.${claims}.${signature}`;
  }

  private async exchange(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
  ): Promise<Minted> {
    const source = this.credentials.source;
    let response: Awaited<ReturnType<typeof httpRequest>>;
    try {
      response = await httpRequest(url, { ...init, proxy: proxyForUrl(url, this.env) });
    } catch (error) {
      throw new GoogleTokenError(
        `could not reach Google for an access token (${source}): ${(error as Error).message}`,
        false,
      );
    }
    const text = await response.text();
    let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // Reported below with the status.
    }
    if (response.status < 200 || response.status > 299 || typeof body.access_token !== "string") {
      const said = [body.error, body.error_description].filter((part) => typeof part === "string").join(": ");
      const refused = response.status >= 400 && response.status < 500 && response.status !== 429;
      throw new GoogleTokenError(
        `Google ${refused ? "refused" : "could not issue"} an access token for ${source} (HTTP ${response.status}${said ? `, ${said}` : ""})` +
          (refused ? ": check that the key or login is still valid and has the Vertex AI User role" : ""),
        refused,
      );
    }
    const seconds = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : TOKEN_LIFETIME_S;
    return { token: body.access_token, expiresAt: this.now() + seconds * 1000 };
  }
}
