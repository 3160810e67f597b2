/**
 * Splits a reply that is longer than a platform allows into several messages: at paragraph
 * breaks where possible, then at line breaks, then at spaces, and only as a last resort inside
 * a word. A code block cut in two is closed at the end of one part and reopened (with its
 * language) at the start of the next, so each part renders on its own.
 */

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

interface Fence {
  marker: string;
  info: string;
}

/** The fence still open after `text`, if any. */
function openFenceAfter(text: string, start: Fence | undefined): Fence | undefined {
  let open = start;
  for (const line of text.split("\n")) {
    const match = FENCE.exec(line);
    if (!match) continue;
    const marker = match[2] as string;
    if (!open) open = { marker, info: (match[3] ?? "").trim() };
    else if (marker.startsWith(open.marker[0] as string) && marker.length >= open.marker.length && !match[3]?.trim()) {
      open = undefined;
    }
  }
  return open;
}

/** The best place to cut `text` so the first part is at most `limit` characters. */
function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit + 1);
  for (const separator of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(separator, limit);
    // A cut in the first fifth would make a uselessly short part; look for a coarser one.
    if (at > limit / 5) return at;
  }
  return limit;
}

/** Characters kept free at the end of a part for a closing fence. */
const CLOSER_ROOM = 10;

export function splitMessage(text: string, limit: number): string[] {
  if (limit < 64) throw new Error(`a message limit of ${limit} characters is too small to split into`);
  const parts: string[] = [];
  let rest = text;
  let carried: Fence | undefined;
  while (rest.length > 0) {
    const opener = carried ? `${carried.marker}${carried.info.slice(0, 20)}\n` : "";
    if (opener.length + rest.length <= limit) {
      parts.push(opener + rest);
      break;
    }
    const at = cutPoint(rest, limit - opener.length - CLOSER_ROOM);
    const head = rest.slice(0, at).trimEnd();
    const open = openFenceAfter(head, carried);
    if (head.trim()) parts.push(opener + head + (open ? `\n${open.marker}` : ""));
    carried = open;
    // Inside a code block only the line break is dropped, so indentation survives.
    rest = open ? rest.slice(at).replace(/^\n/, "") : rest.slice(at).trimStart();
  }
  return parts;
}
