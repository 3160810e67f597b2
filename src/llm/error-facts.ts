/**
 * Flattens whatever was thrown (an LlmError, an SDK error, a plain `{status, message, body}`
 * object, a Node transport error, or a chain of these linked by `cause`) into the facts the
 * classification rules read.
 */

export interface ErrorFacts {
  status?: number;
  /** Distinct messages found along the chain, outermost first. */
  messages: string[];
  /** The provider's own error message from the response body, when there is one. */
  bodyMessage?: string;
  /** Machine-readable body code (`error.code`, or Google's `error.status`), lower-cased. */
  bodyCode?: string;
  /** Body error type (`error.type`), lower-cased. */
  bodyType?: string;
  /** The parsed body closest to the top of the chain. */
  body?: unknown;
  /** Error names along the chain (`RemoteProtocolError`, `AbortError`, ...). */
  names: string[];
  /** Transport codes along the chain (`ECONNRESET`, `UND_ERR_SOCKET`, ...). */
  transportCodes: string[];
  /** LlmError kind, when the error is (or wraps) one. */
  kind?: string;
  /** Response headers with lower-cased names (body-nested rate-limit headers included). */
  headers: Record<string, string>;
  /** Human wording only (messages, body message, upstream raw text), lower-cased. */
  wording: string;
  /** Wording plus the body code and type, lower-cased, for pattern rules. */
  text: string;
}

const MAX_CHAIN = 8;
const LLM_ERROR_KINDS = new Set(["http", "timeout", "stale_stream", "disconnect", "abort", "malformed", "network"]);
const TRANSPORT_CODE = /^(E[A-Z0-9_]+|UND_ERR_[A-Z_]+|ERR_[A-Z_]+)$/;

type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function httpStatus(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

/** A body may arrive as text; parse it when it is JSON, otherwise keep the text. */
function parseBody(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  const trimmed = raw.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** The object that carries `message`/`code`/`type`: `body.error`, the body itself, or Gemini's `[{error}]`. */
function errorObjectOf(body: unknown): Dict | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isDict(first)) return undefined;
  if (isDict(first.error)) return first.error;
  if ("message" in first || "code" in first || "type" in first) return first;
  return undefined;
}

/** Anything with Map-like `forEach` and `get` (a `Map`, a fetch `Headers`). */
interface HeaderMap {
  forEach(callback: (value: unknown, key: string) => void): void;
  get(name: string): unknown;
}

function isHeaderMap(value: unknown): value is HeaderMap {
  const candidate = value as Partial<HeaderMap> | null;
  return typeof candidate?.forEach === "function" && typeof candidate.get === "function";
}

/**
 * Header names lower-cased, from a plain object, a Map or a fetch `Headers`. Recognised by
 * shape: naming the global `Headers` would load undici (~80 ms) on the one-shot path.
 */
export function headersToRecord(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isHeaderMap(headers)) {
    headers.forEach((value, key) => {
      out[key.toLowerCase()] = String(value);
    });
    return out;
  }
  if (!isDict(headers)) return out;
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === "string" || typeof value === "number") out[key.toLowerCase()] = String(value);
    else if (Array.isArray(value) && value.length > 0) out[key.toLowerCase()] = String(value[0]);
  }
  return out;
}

function chainOf(error: unknown): Dict[] {
  const chain: Dict[] = [];
  const seen = new Set<unknown>();
  let node: unknown = error;
  while (node !== null && typeof node === "object" && !seen.has(node) && chain.length < MAX_CHAIN) {
    seen.add(node);
    chain.push(node as Dict);
    node = (node as Dict).cause;
  }
  return chain;
}

export function collectErrorFacts(error: unknown): ErrorFacts {
  const facts: ErrorFacts = { messages: [], names: [], transportCodes: [], headers: {}, wording: "", text: "" };
  const extraText: string[] = [];
  if (typeof error === "string") facts.messages.push(error);

  for (const node of chainOf(error)) {
    const message = str(node.message);
    if (message && !facts.messages.includes(message)) facts.messages.push(message);
    const name = str(node.name);
    if (name) facts.names.push(name);
    const code = node.code;
    if (typeof code === "string" && TRANSPORT_CODE.test(code)) facts.transportCodes.push(code);
    if (facts.kind === undefined && typeof node.kind === "string" && LLM_ERROR_KINDS.has(node.kind)) {
      facts.kind = node.kind;
    }
    const response = isDict(node.response) ? node.response : undefined;
    facts.status ??= httpStatus(node.status) ?? httpStatus(node.statusCode) ?? httpStatus(node.status_code);
    facts.status ??= httpStatus(response?.status);
    const headers = headersToRecord(node.headers ?? response?.headers);
    for (const [key, value] of Object.entries(headers)) facts.headers[key] ??= value;

    // SDK errors keep the parsed body (or its `error` member) under `error`; plain objects use `body`.
    const rawBody = node.body ?? node.error ?? response?.data;
    if (rawBody === undefined || facts.body !== undefined) continue;
    const body = parseBody(rawBody);
    facts.body = body;
    if (typeof body === "string") {
      extraText.push(body.slice(0, 2000));
      continue;
    }
    absorbErrorObject(facts, errorObjectOf(body), extraText);
    // SDKs that hold only the inner error object still expose code/type on the error itself.
    if (facts.bodyCode === undefined && typeof code === "string" && !TRANSPORT_CODE.test(code)) {
      facts.bodyCode = code.toLowerCase();
    }
    if (facts.bodyType === undefined) facts.bodyType = str(node.type)?.toLowerCase();
  }

  // Some SDKs raise their rate-limit error without a status; the class name says it all.
  if (facts.status === undefined && isDict(error) && error.name === "RateLimitError") facts.status = 429;

  facts.wording = [...facts.messages, facts.bodyMessage, ...extraText]
    .filter((part): part is string => typeof part === "string")
    .join("\n")
    .toLowerCase();
  facts.text = [facts.wording, facts.bodyCode, facts.bodyType].filter(Boolean).join("\n");
  return facts;
}

function absorbErrorObject(facts: ErrorFacts, errorObject: Dict | undefined, extraText: string[]): void {
  if (!errorObject) return;
  facts.bodyMessage = str(errorObject.message);
  const code = errorObject.code;
  if (typeof code === "string") facts.bodyCode = code.toLowerCase();
  else facts.status ??= httpStatus(code);
  if (facts.bodyCode === undefined && typeof errorObject.status === "string") {
    facts.bodyCode = errorObject.status.toLowerCase();
  }
  facts.bodyType = str(errorObject.type)?.toLowerCase();
  const metadata = isDict(errorObject.metadata) ? errorObject.metadata : undefined;
  // OpenRouter nests the upstream provider's raw error text and rate-limit headers here.
  const raw = metadata?.raw;
  if (typeof raw === "string") extraText.push(raw.slice(0, 2000));
  else if (raw !== undefined) extraText.push(JSON.stringify(raw).slice(0, 2000));
  for (const [key, value] of Object.entries(headersToRecord(metadata?.headers))) facts.headers[key] ??= value;
}

/** Longest message kept for display. */
const MAX_DISPLAY_CHARS = 500;

/**
 * The message to show: the provider's own words from the body when it sent any (wrapper text
 * such as "Error code: 400 - {...}" only repeats them), else the error's own message.
 */
export function displayMessage(facts: ErrorFacts): string {
  const chosen = (facts.bodyMessage ?? facts.messages[0] ?? "").trim();
  return chosen ? chosen.slice(0, MAX_DISPLAY_CHARS) : "Unknown error";
}
