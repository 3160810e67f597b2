/** Session ids and fallback titles. */
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The ids this process handed out in the current second: 6 random hex digits collide by chance. */
let issuedSecond = "";
const issued = new Set<string>();

/**
 * A new session id, `YYYYMMDD_HHMMSS_xxxxxx` (UTC time, then 6 random hex digits): sorts by
 * creation time. Never the same twice within a process: a server starting a few hundred sessions
 * a second would otherwise draw a duplicate suffix within minutes (24 random bits per second).
 * The suffix tells ids apart and is no secret (every session surface checks who owns a session),
 * so it comes from Math.random rather than node:crypto, which a one-shot run would load for it.
 */
export function sessionIdNew(now: Date = new Date()): string {
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const second = `${date}_${time}`;
  if (second !== issuedSecond) {
    issuedSecond = second;
    issued.clear();
  }
  for (;;) {
    const id = `${second}_${Math.floor(Math.random() * 0x1000000)
      .toString(16)
      .padStart(6, "0")}`;
    if (issued.has(id)) continue;
    issued.add(id);
    return id;
  }
}

/** A title made from the first user message, for when no model-written title is available. */
export function fallbackTitle(firstUserMessage: string, maxLength = 60): string {
  const oneLine = firstUserMessage.replace(/\s+/g, " ").trim();
  if (oneLine.length <= maxLength) return oneLine;
  const cut = oneLine.slice(0, maxLength - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${lastSpace > maxLength / 2 ? cut.slice(0, lastSpace) : cut}…`;
}
