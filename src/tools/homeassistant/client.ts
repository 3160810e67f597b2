/**
 * The Home Assistant REST API, as the ha_* tools use it: `GET /api/states`,
 * `GET /api/states/<entity_id>`, `GET /api/services` and `POST /api/services/<domain>/<service>`,
 * each with `Authorization: Bearer <HASS_TOKEN>`.
 *
 * The token goes only to HASS_URL's origin: every request URL is the configured base plus a fixed
 * path and checked segments, and redirects are reported, never followed. Every request has a
 * deadline and a cap on the bytes read, and no error message carries the token.
 */
import { BodyTooLarge, readResponseCapped } from "../../util/read-capped.js";
import { redactSecrets } from "../../util/redact.js";
import { HA_ENTITY_ID, HA_NAME } from "./guards.js";

export type Env = Record<string, string | undefined>;

export const DEFAULT_HASS_URL = "http://homeassistant.local:8123";
export const HA_REQUEST_TIMEOUT_MS = 15_000;
/** Bytes of one answer read at most (after decompression); a big home's state list fits easily. */
export const HA_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export class HaError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "HaError";
  }
}

export interface HaConnection {
  /** HASS_URL without a trailing slash (or `/api`), e.g. `http://homeassistant.local:8123`. */
  base: string;
  /** Scheme, host and port of `base`: the only place the token is sent, and what errors name. */
  origin: string;
  token: string;
}

export interface HaClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export const TOKEN_HELP =
  "create a long-lived access token on your Home Assistant profile page (Security tab) and set HASS_TOKEN in ~/.hermes/.env";

/** HASS_TOKEN and HASS_URL from `env`, or why they cannot be used. */
export function connectionFromEnv(env: Env): { ok: true; connection: HaConnection } | { ok: false; error: string } {
  const token = env.HASS_TOKEN?.trim() ?? "";
  if (!token) {
    const error = `Home Assistant is not set up: ${TOKEN_HELP} (and HASS_URL if it is not ${DEFAULT_HASS_URL}).`;
    return { ok: false, error };
  }
  const raw = env.HASS_URL?.trim() || DEFAULT_HASS_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: `HASS_URL is not a URL; set it to your server's address, e.g. ${DEFAULT_HASS_URL}.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `HASS_URL must start with http:// or https://, e.g. ${DEFAULT_HASS_URL}.` };
  }
  if (url.username || url.password) {
    return { ok: false, error: "HASS_URL must not hold a user name or password; HASS_TOKEN is the credential." };
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return { ok: true, connection: { base: `${url.origin}${path}`, origin: url.origin, token } };
}

interface Answer {
  status: number;
  text: string;
}

export class HaClient {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(
    private readonly connection: HaConnection,
    options: HaClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? HA_REQUEST_TIMEOUT_MS;
    this.maxBytes = options.maxResponseBytes ?? HA_MAX_RESPONSE_BYTES;
  }

  async states(signal: AbortSignal): Promise<unknown> {
    return this.json(await this.send("GET", "/api/states", undefined, signal), "");
  }

  async state(entityId: string, signal: AbortSignal): Promise<unknown> {
    const answer = await this.send("GET", `/api/states/${segment(entityId, HA_ENTITY_ID)}`, undefined, signal);
    if (answer.status === 404) {
      throw new HaError(`Home Assistant has no entity "${entityId}"; ha_list_entities lists the ones it has.`, 404);
    }
    return this.json(answer, `reading ${entityId}`);
  }

  async services(signal: AbortSignal): Promise<unknown> {
    return this.json(await this.send("GET", "/api/services", undefined, signal), "");
  }

  /**
   * Calls a service and answers the states it changed, and the service's own response for the
   * services that only answer (weather forecasts, calendar events): Home Assistant refuses those
   * without `?return_response` before running anything, so asking again is safe.
   */
  async callService(
    domain: string,
    service: string,
    data: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ changed: unknown; response?: unknown }> {
    const path = `/api/services/${segment(domain, HA_NAME)}/${segment(service, HA_NAME)}`;
    const what = `${domain}.${service}`;
    let answer = await this.send("POST", path, data, signal);
    if (answer.status === 400 && /requires responses/i.test(answer.text)) {
      answer = await this.send("POST", `${path}?return_response`, data, signal);
      const body = asObject(this.json(answer, `calling ${what}`));
      return { changed: body.changed_states ?? [], response: body.service_response };
    }
    if (answer.status === 400 || answer.status === 404) {
      throw new HaError(
        `Home Assistant rejected ${what} (HTTP ${answer.status}): no such service, or data it does not accept` +
          `${this.said(answer.text)}. ha_list_services with domain "${domain}" shows its services and fields.`,
        answer.status,
      );
    }
    const body = this.json(answer, `calling ${what}`);
    if (Array.isArray(body)) return { changed: body };
    const object = asObject(body);
    return { changed: object.changed_states ?? [], response: object.service_response };
  }

  private async send(method: "GET" | "POST", path: string, body: unknown, outer: AbortSignal): Promise<Answer> {
    const { base, origin, token } = this.connection;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([outer, deadline]);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: "manual",
        signal,
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => {});
        throw new HaError(
          `Home Assistant at ${origin} answered with a redirect (HTTP ${response.status})${redirectTarget(response, base)}; ` +
            "set HASS_URL to the address the server really answers on (the token is never sent on a redirect).",
          response.status,
        );
      }
      const text = await readCapped(response, this.maxBytes);
      if (response.status >= 400 && response.status !== 400 && response.status !== 404) {
        throw this.failure(response.status, text);
      }
      return { status: response.status, text };
    } catch (error) {
      if (error instanceof HaError) throw error;
      if (deadline.aborted) {
        throw new HaError(
          `Home Assistant at ${origin} did not answer within ${this.timeoutMs / 1000}s; check that it is running and HASS_URL is right.`,
        );
      }
      if (outer.aborted) throw new HaError("The Home Assistant request was interrupted.");
      throw new HaError(
        `Could not reach Home Assistant at ${origin}: ${this.clean(networkReason(error))}. Check HASS_URL and that the server is running.`,
      );
    }
  }

  private json(answer: Answer, doing: string): unknown {
    if (answer.status === 400 || answer.status === 404) {
      const hint = doing ? "" : " Check that HASS_URL points at Home Assistant and its API is on.";
      throw new HaError(
        `Home Assistant answered HTTP ${answer.status}${doing ? ` ${doing}` : ""}${this.said(answer.text)}.${hint}`,
        answer.status,
      );
    }
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new HaError(
        `The server at ${this.connection.origin} did not answer with JSON; check that HASS_URL points at Home Assistant.`,
      );
    }
  }

  private failure(status: number, text: string): HaError {
    if (status === 401)
      return new HaError(`Home Assistant refused the token (HTTP 401). Check HASS_TOKEN: ${TOKEN_HELP}.`, 401);
    if (status === 403) {
      return new HaError(
        `Home Assistant denied this (HTTP 403)${this.said(text)}: the token's user may not do it (some actions need an administrator).`,
        403,
      );
    }
    if (status >= 500) {
      return new HaError(
        `Home Assistant had an internal error (HTTP ${status})${this.said(text)}; try again, or look at its log (Settings > System > Logs).`,
        status,
      );
    }
    return new HaError(`Home Assistant answered HTTP ${status}${this.said(text)}.`, status);
  }

  /** `: <what the server said>`, short, from its JSON `message` or its text. */
  private said(text: string): string {
    let message = text;
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      if (typeof parsed?.message === "string") message = parsed.message;
    } catch {}
    const short = this.clean(message.replaceAll(/\s+/g, " ").trim().slice(0, 200));
    return short ? `: ${short}` : "";
  }

  /** The text without the token (even if a server echoes it) and without anything shaped like a secret. */
  clean(text: string): string {
    return redactSecrets(text.replaceAll(this.connection.token, "[HASS_TOKEN]"));
  }
}

function segment(value: string, pattern: RegExp): string {
  if (!pattern.test(value))
    throw new HaError(`"${value.slice(0, 80)}" is not a valid Home Assistant name or entity id.`);
  return encodeURIComponent(value);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** ` to <origin>` of a redirect's Location, or nothing: the rest of the address is not shown. */
function redirectTarget(response: Response, base: string): string {
  const location = response.headers.get("location");
  if (!location) return "";
  try {
    return ` to ${new URL(location, base).origin}`;
  } catch {
    return "";
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  try {
    return (await readResponseCapped(response, maxBytes)).toString("utf8");
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    throw new HaError(
      `Home Assistant's answer is larger than ${Math.round(maxBytes / 1024)} KB, more than is read; narrow the request.`,
    );
  }
}
