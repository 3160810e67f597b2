/**
 * Microsoft Edge's read-aloud voices: free, no key, over a WebSocket (the protocol the Python
 * `edge-tts` package speaks). One connection per piece of text:
 * - the URL carries the browser's public client token, a connection id, and `Sec-MS-GEC`, a
 *   SHA-256 of the Windows file time (rounded down to 5 minutes) and that token;
 * - we send a `speech.config` text frame (the output format), then an `ssml` frame (the text in
 *   a <speak><voice> document);
 * - the service answers text frames (`turn.start`, `response`, `audio.metadata`), binary frames
 *   whose header block (its length in the first two bytes) says `Path:audio` followed by audio
 *   bytes, and finally a `turn.end` text frame.
 * The service hands out MP3 only (it refuses the Ogg/Opus formats Azure offers), so the file is
 * MP3. `EDGE_TTS_URL` replaces the service URL (tests). A 403 with the server's clock in its Date
 * header means ours is off: the token is made again on that clock, once.
 */
import type { RawData, WebSocket } from "ws";
import { nodeCrypto } from "../../util/node-crypto.js";
import { MAX_AUDIO_BYTES, type SpeechRequest, TtsError } from "./types.js";

export const EDGE_TTS_URL = "wss://speech.platform.bing.com/consumer/speech/synthesize/readaloud/edge/v1";
export const TRUSTED_CLIENT_TOKEN = "6A5AA1D4EAFF4E9FB37E23D68491D6F4";
const CHROMIUM_VERSION = "143.0.3650.75";
const CHROMIUM_MAJOR = CHROMIUM_VERSION.split(".")[0];
export const SEC_MS_GEC_VERSION = `1-${CHROMIUM_VERSION}`;
export const EDGE_OUTPUT_FORMAT = "audio-24khz-48kbitrate-mono-mp3";
/** The service takes at most this many bytes of (escaped) text in one SSML document. */
export const MAX_SSML_TEXT_BYTES = 4096;
/** Seconds between 1601-01-01 (the Windows epoch) and 1970-01-01. */
const WINDOWS_EPOCH_OFFSET = 11_644_473_600;
const LONG_VOICE = /^Microsoft Server Speech Text to Speech Voice \(.+,.+\)$/;

/** How far the service's clock is ahead of ours, learned from a refused connection. */
let clockSkewMs = 0;

/** The `Sec-MS-GEC` token for a moment: SHA-256 of its 5-minute Windows tick count and the client token. */
export function secMsGec(nowMs: number): string {
  let seconds = Math.floor(nowMs / 1000) + WINDOWS_EPOCH_OFFSET;
  seconds -= seconds % 300;
  const ticks = BigInt(seconds) * 10_000_000n;
  return nodeCrypto()
    .createHash("sha256")
    .update(`${ticks}${TRUSTED_CLIENT_TOKEN}`, "ascii")
    .digest("hex")
    .toUpperCase();
}

export function escapeXml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/** Control characters the service rejects (a vertical tab from a PDF, ...) become spaces. */
function cleanText(text: string): string {
  return text.replaceAll(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, " ");
}

/** `en-US-AriaNeural` in the long form the service (and Edge itself) uses. */
export function edgeVoiceName(voice: string): string {
  const short = /^([a-z]{2,})-([A-Z]{2,})-(.+Neural)$/.exec(voice.trim());
  let long = voice.trim();
  if (short) {
    let [, lang, region, name] = short as unknown as [string, string, string, string];
    const dash = name.indexOf("-");
    if (dash >= 0) {
      region = `${region}-${name.slice(0, dash)}`;
      name = name.slice(dash + 1);
    }
    long = `Microsoft Server Speech Text to Speech Voice (${lang}-${region}, ${name})`;
  }
  if (!LONG_VOICE.test(long)) {
    throw new TtsError(`"${voice}" is not an Edge voice name; use one like en-US-AriaNeural or en-GB-SoniaNeural`);
  }
  return long;
}

const bytesOf = (text: string) => Buffer.byteLength(escapeXml(text));

/** Pieces of the text whose escaped form fits one SSML document, cut at whitespace where possible. */
export function splitForEdge(text: string, maxBytes = MAX_SSML_TEXT_BYTES): string[] {
  const pieces: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim()) pieces.push(current.trim());
    current = "";
  };
  for (const token of text.split(/(\s+)/)) {
    if (bytesOf(current + token) <= maxBytes) {
      current += token;
      continue;
    }
    flush();
    if (bytesOf(token) <= maxBytes) {
      current = token;
      continue;
    }
    // One word longer than a document: cut it between characters.
    for (const char of token) {
      if (bytesOf(current + char) > maxBytes) flush();
      current += char;
    }
  }
  flush();
  return pieces;
}

/** A JavaScript-style UTC date, as the browser sends it. */
function jsDate(now: Date): string {
  const [day, month, date, year, time] = now.toUTCString().replace(",", "").split(" ") as [
    string,
    string,
    string,
    string,
    string,
  ];
  return `${day} ${month} ${date} ${year} ${time} GMT+0000 (Coordinated Universal Time)`;
}

function configFrame(now: Date): string {
  const config = {
    context: {
      synthesis: {
        audio: {
          metadataoptions: { sentenceBoundaryEnabled: "false", wordBoundaryEnabled: "false" },
          outputFormat: EDGE_OUTPUT_FORMAT,
        },
      },
    },
  };
  return (
    `X-Timestamp:${jsDate(now)}\r\nContent-Type:application/json; charset=utf-8\r\n` +
    `Path:speech.config\r\n\r\n${JSON.stringify(config)}\r\n`
  );
}

function ssmlFrame(now: Date, voice: string, text: string): string {
  const ssml =
    "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'>" +
    `<voice name='${escapeXml(voice)}'><prosody pitch='+0Hz' rate='+0%' volume='+0%'>` +
    `${escapeXml(text)}</prosody></voice></speak>`;
  // The "Z" after a JavaScript date is what Edge itself sends.
  return (
    `X-RequestId:${connectionId()}\r\nContent-Type:application/ssml+xml\r\n` +
    `X-Timestamp:${jsDate(now)}Z\r\nPath:ssml\r\n\r\n${ssml}`
  );
}

function connectionId(): string {
  return nodeCrypto().randomUUID().replaceAll("-", "");
}

/** The header lines of a frame as a map (names as sent). */
function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return headers;
}

/** A binary frame: two bytes of header length, the header block, then audio. */
export function parseBinaryFrame(frame: Buffer): { headers: Map<string, string>; audio: Buffer } {
  if (frame.length < 2) throw new TtsError("Edge's speech service sent a binary frame without its header length");
  const length = frame.readUInt16BE(0);
  if (2 + length > frame.length)
    throw new TtsError("Edge's speech service sent a binary frame shorter than its header");
  return { headers: parseHeaders(frame.subarray(2, 2 + length).toString("utf8")), audio: frame.subarray(2 + length) };
}

function frameBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

class ClockSkew extends Error {}

function connectUrl(base: string): string {
  const query = new URLSearchParams({
    TrustedClientToken: TRUSTED_CLIENT_TOKEN,
    ConnectionId: connectionId(),
    "Sec-MS-GEC": secMsGec(Date.now() + clockSkewMs),
    "Sec-MS-GEC-Version": SEC_MS_GEC_VERSION,
  });
  return `${base}${base.includes("?") ? "&" : "?"}${query}`;
}

function browserHeaders(): Record<string, string> {
  return {
    "User-Agent":
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ` +
      `Chrome/${CHROMIUM_MAJOR}.0.0.0 Safari/537.36 Edg/${CHROMIUM_MAJOR}.0.0.0`,
    "Accept-Language": "en-US,en;q=0.9",
    Pragma: "no-cache",
    "Cache-Control": "no-cache",
    Origin: "chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold",
    Cookie: `muid=${nodeCrypto().randomBytes(16).toString("hex").toUpperCase()};`,
  };
}

/** One piece of text over one connection; resolves with its MP3 bytes. */
function speakPiece(
  Socket: typeof WebSocket,
  base: string,
  voice: string,
  text: string,
  signal: AbortSignal,
  mayFixClock: boolean,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const audio: Buffer[] = [];
    let received = 0;
    let settled = false;
    const socket = new Socket(connectUrl(base), { headers: browserHeaders(), perMessageDeflate: true });
    const onAbort = () => finish(new TtsError("aborted"));
    function finish(error: Error | undefined, value?: Buffer): void {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket.removeAllListeners();
      // A late error from the socket being torn down must not go unhandled.
      socket.on("error", () => undefined);
      if (socket.readyState === socket.OPEN) socket.close();
      else socket.terminate();
      if (error) reject(error);
      else resolve(value ?? Buffer.alloc(0));
    }
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();

    socket.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      const serverDate = Date.parse(String(response.headers.date ?? ""));
      response.resume();
      if (status === 403 && mayFixClock && Number.isFinite(serverDate)) {
        clockSkewMs += serverDate - Date.now();
        return finish(new ClockSkew());
      }
      finish(new TtsError(`Edge's speech service refused the connection (HTTP ${status})`));
    });
    socket.on("open", () => {
      const now = new Date();
      socket.send(configFrame(now));
      socket.send(ssmlFrame(now, voice, text));
    });
    socket.on("message", (data, isBinary) => {
      try {
        const frame = frameBuffer(data);
        if (isBinary) {
          const { headers, audio: bytes } = parseBinaryFrame(frame);
          if (headers.get("Path") !== "audio") {
            throw new TtsError(`Edge's speech service sent a binary frame for "${headers.get("Path") ?? "?"}"`);
          }
          if (bytes.length === 0) return;
          received += bytes.length;
          if (received > MAX_AUDIO_BYTES) throw new TtsError("Edge's speech service sent more audio than allowed");
          audio.push(bytes);
          return;
        }
        const text = frame.toString("utf8");
        const end = text.indexOf("\r\n\r\n");
        const path = parseHeaders(end >= 0 ? text.slice(0, end) : text).get("Path");
        if (path !== "turn.end") return;
        if (audio.length === 0) throw new TtsError("Edge's speech service finished without sending any audio");
        finish(undefined, Buffer.concat(audio));
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on("close", (code) => {
      finish(
        new TtsError(
          `Edge's speech service closed the connection before the audio was complete (code ${code}); ` +
            "try again, or set tts.provider to openai or elevenlabs",
        ),
      );
    });
    socket.on("error", (error) => {
      finish(new TtsError(`could not reach Edge's speech service: ${error.message}`));
    });
  });
}

export async function edgeSpeech(request: SpeechRequest): Promise<Buffer> {
  const voice = edgeVoiceName(request.voice || request.settings.edgeVoice);
  const base = request.env.EDGE_TTS_URL?.trim() || EDGE_TTS_URL;
  const { WebSocket: Socket } = await import("ws");
  const parts: Buffer[] = [];
  for (const piece of splitForEdge(cleanText(request.text))) {
    try {
      parts.push(await speakPiece(Socket, base, voice, piece, request.signal, true));
    } catch (error) {
      if (!(error instanceof ClockSkew)) throw error;
      parts.push(await speakPiece(Socket, base, voice, piece, request.signal, false));
    }
  }
  if (parts.length === 0) throw new TtsError("there is no text to speak");
  return Buffer.concat(parts);
}
