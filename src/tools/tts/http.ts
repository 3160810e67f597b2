/** The HTTP side of the hosted text-to-speech providers: one POST, its audio, or an error to show. */
import { redactSecrets } from "../../util/redact.js";
import { type HttpAnswer, MAX_AUDIO_BYTES, TtsError, type TtsHttp } from "./types.js";

/** `fetch`, for callers that do not pass the runtime's client (a library user, a bare registry). */
export const fetchHttp: TtsHttp = async (url, request) => {
  const response = await fetch(url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
    signal: request.signal,
  });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
};

function hint(status: number): string {
  if (status === 401 || status === 403) return " (the API key was refused: check it)";
  if (status === 429) return " (rate limited or out of credits: try again later)";
  if (status >= 500) return " (a problem on the service's side: try again later)";
  return "";
}

/** What the service said, short, with anything that looks like a key taken out. */
function reason(body: Buffer, key: string): string {
  let text = body.toString("utf8").replaceAll(/\s+/g, " ").trim().slice(0, 300);
  if (key) text = text.replaceAll(key, "[key]");
  return redactSecrets(text);
}

/**
 * POSTs `body` and answers the audio bytes; any failure is a TtsError whose message names the
 * service and never holds the key.
 */
export async function postForAudio(
  http: TtsHttp,
  service: string,
  url: string,
  init: { headers: Record<string, string>; body: unknown; key: string; signal: AbortSignal },
): Promise<Buffer> {
  let answer: HttpAnswer;
  try {
    answer = await http(url, {
      headers: { "content-type": "application/json", ...init.headers },
      body: JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (error) {
    if (init.signal.aborted) throw new TtsError(`${service} did not answer in time or the call was interrupted`);
    const message = error instanceof Error ? error.message : String(error);
    throw new TtsError(`could not reach ${service}: ${reason(Buffer.from(message), init.key)}`);
  }
  if (answer.status >= 400) {
    const said = reason(answer.body, init.key);
    throw new TtsError(`${service} answered HTTP ${answer.status}${hint(answer.status)}${said ? `: ${said}` : ""}`);
  }
  if (answer.body.length === 0) throw new TtsError(`${service} answered with no audio`);
  if (answer.body.length > MAX_AUDIO_BYTES) {
    throw new TtsError(`${service} answered ${answer.body.length} bytes, more than the ${MAX_AUDIO_BYTES} allowed`);
  }
  return answer.body;
}

/** Join a base URL and a path without doubling or dropping the slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
