/**
 * Bounded capture of child-process output. Commands can print gigabytes; we keep only what a
 * model could read (the beginning and the end) and count what was dropped.
 */

// CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and lone escapes.
const ANSI_PATTERN = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Collapse carriage-return progress bars to their final state per line. */
function resolveCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      const cut = trimmed.lastIndexOf("\r");
      return cut === -1 ? trimmed : trimmed.slice(cut + 1);
    })
    .join("\n");
}

/** Make terminal output readable as plain text. */
export function cleanTerminalOutput(text: string): string {
  return resolveCarriageReturns(stripAnsi(text));
}

export function truncationMarker(removed: number, total: number): string {
  return `\n\n[... output truncated: ${removed} characters removed of ${total} ...]\n\n`;
}

/** Keeps the first `headChars` and the last `tailChars` characters of a stream. */
export class HeadTailBuffer {
  private head = "";
  private tail = "";
  private total = 0;

  constructor(
    private readonly headChars: number,
    private readonly tailChars: number,
  ) {}

  get totalChars(): number {
    return this.total;
  }

  append(chunk: string): void {
    this.total += chunk.length;
    const room = this.headChars - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail = (this.tail + chunk).slice(-this.tailChars);
  }

  /** The captured text, with a marker where the middle was dropped. */
  text(): string {
    const removed = this.total - this.head.length - this.tail.length;
    if (removed <= 0) return this.head + this.tail;
    return this.head + truncationMarker(removed, this.total) + this.tail;
  }
}

/**
 * A rolling window over the latest `capChars` characters of a stream, with absolute offsets so
 * readers can ask for "what came after position N" even after old output was dropped.
 */
export class RingBuffer {
  private data = "";
  private dropped = 0;

  constructor(private readonly capChars: number) {}

  /** Characters ever appended. */
  get end(): number {
    return this.dropped + this.data.length;
  }

  /** Characters dropped from the front to respect the cap. */
  get droppedChars(): number {
    return this.dropped;
  }

  append(chunk: string): void {
    this.data += chunk;
    const excess = this.data.length - this.capChars;
    if (excess > 0) {
      this.data = this.data.slice(excess);
      this.dropped += excess;
    }
  }

  /** Everything still held. */
  text(): string {
    return this.data;
  }

  /** Text appended since absolute position `from` (clamped to what is still held). */
  since(from: number): string {
    return this.data.slice(Math.max(0, from - this.dropped));
  }
}
