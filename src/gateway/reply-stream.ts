/**
 * What a chat sees while the agent works: the reply growing by progressive edits of one
 * message (where the platform can edit and streaming is on), or as a draft where the adapter
 * has drafts, and tool progress lines. Both are best-effort previews; the final reply always
 * goes through the delivery ledger, replacing an edited preview when it fits in one message.
 */
import { randomInt } from "node:crypto";
import type { AgentEvent } from "../agent/events.js";
import type { StreamTransport, ToolProgressMode } from "./settings.js";
import { type ChatAddress, type PlatformAdapter, PlatformSendError } from "./types.js";

/** Marks a preview that is still growing. */
export const STREAM_CURSOR = " ▉";
/** A preview starts once this much text has arrived, so a one-word reply is not sent twice. */
const MIN_PREVIEW_CHARS = 24;

export interface ReplyStreamOptions {
  adapter: PlatformAdapter;
  address: ChatAddress;
  /** The message the preview quotes, as the reply's first part would (`reply_to_mode`). */
  replyTo?: string;
  streaming: boolean;
  editIntervalMs: number;
  /** Characters before the first preview (default 24). */
  previewAfterChars?: number;
  /**
   * A preview shown for longer than this is not turned into the final reply by an edit (which
   * does not notify): the final is sent fresh and the preview removed. 0 or unset: always edit.
   */
  freshFinalAfterMs?: number;
  /** Appended to the preview while it grows (default " ▉"). */
  cursor?: string;
  /** "edit": previews always edit a message; "auto"/"draft" (default auto): drafts where the adapter can. */
  transport?: StreamTransport;
  toolProgress: ToolProgressMode;
  log?: (message: string) => void;
  now?: () => number;
}

export class ReplyStream {
  private text = "";
  private previewId: string | undefined;
  private previewSince: number | undefined;
  private shownAt: number;
  private lastEditAt = 0;
  private inFlight: Promise<void> = Promise.resolve();
  private editTimer: NodeJS.Timeout | undefined;
  private lastTool: string | undefined;
  private progressId: string | undefined;
  private progressLines: string[] = [];
  private closed = false;
  private readonly now: () => number;
  /** This reply's draft while previews are drafts; unset once drafts are not possible here. */
  private draftId: number | undefined;
  private draftsPausedUntil = 0;

  constructor(private readonly options: ReplyStreamOptions) {
    this.now = options.now ?? Date.now;
    this.shownAt = this.now();
    if (options.transport !== "edit" && options.adapter.draft) this.draftId = randomInt(1, 2 ** 31 - 1);
  }

  /** When the chat last saw something of this turn (a preview, a progress line, a note), or when it began. */
  get lastShownAt(): number {
    return this.shownAt;
  }

  /** Something else of this turn reached the chat (a "still working" note). */
  shown(): void {
    this.shownAt = this.now();
  }

  private get cursor(): string {
    return this.options.cursor ?? STREAM_CURSOR;
  }

  private get streams(): boolean {
    const { adapter, streaming } = this.options;
    return streaming && (this.draftId !== undefined || (adapter.canEdit && adapter.edit !== undefined));
  }

  readonly listener = (event: AgentEvent): void => {
    if (this.closed) return;
    if (event.type === "text_delta") this.onText(event.text);
    else if (event.type === "tool_start") this.onTool(event.name, event.preview);
  };

  /** The message showing the streamed reply, when there is one. */
  get previewMessageId(): string | undefined {
    return this.previewId;
  }

  /** Whether the final reply should replace the preview by an edit, rather than arrive as a new message. */
  get finalEditsPreview(): boolean {
    const limit = this.options.freshFinalAfterMs ?? 0;
    return !(limit > 0 && this.previewSince !== undefined && this.now() - this.previewSince >= limit);
  }

  /** Stops previews and waits for the last one to land. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.editTimer);
    await this.inFlight;
  }

  private onText(delta: string): void {
    this.text += delta;
    if (!this.streams || this.text.length < (this.options.previewAfterChars ?? MIN_PREVIEW_CHARS)) return;
    if (this.text.length + this.cursor.length > this.options.adapter.maxMessageLength) return;
    const wait = Math.max(this.lastEditAt + this.options.editIntervalMs, this.draftsPausedUntil) - this.now();
    if (wait <= 0) this.flushPreview();
    else if (!this.editTimer) {
      this.editTimer = setTimeout(() => {
        this.editTimer = undefined;
        if (!this.closed) this.flushPreview();
      }, wait);
    }
  }

  private flushPreview(): void {
    this.lastEditAt = this.now();
    this.shownAt = this.lastEditAt;
    const text = this.text + this.cursor;
    this.chain(async () => {
      const { adapter, address } = this.options;
      if (this.draftId !== undefined && (await this.showDraft(text))) return;
      if (!adapter.canEdit || !adapter.edit) return;
      if (this.previewId) await adapter.edit(address, this.previewId, text, true);
      else {
        const quoted = this.options.replyTo ? { replyTo: this.options.replyTo } : {};
        this.previewId = (await adapter.send({ ...address, ...quoted, text, preview: true })).messageId ?? undefined;
        this.previewSince = this.now();
      }
    });
  }

  /** Whether the preview is in hand as a draft (shown, or waiting out a rate limit); false: edit instead. */
  private async showDraft(text: string): Promise<boolean> {
    const { adapter, address, log } = this.options;
    const draftId = this.draftId;
    if (!adapter.draft || draftId === undefined) return false;
    try {
      if (await adapter.draft(address, draftId, text)) return true;
      if (this.options.transport === "draft") log?.("streaming.transport is draft, but this chat cannot have drafts");
    } catch (error) {
      const waitMs = error instanceof PlatformSendError ? error.options.retryAfterMs : undefined;
      if (waitMs !== undefined) {
        this.draftsPausedUntil = this.now() + waitMs;
        return true;
      }
      log?.(`a draft preview failed (${error instanceof Error ? error.message : String(error)}); editing instead`);
    }
    this.draftId = undefined;
    return false;
  }

  private onTool(name: string, preview: string): void {
    const mode = this.options.toolProgress;
    if (mode === "off" || (mode === "new" && name === this.lastTool)) return;
    this.lastTool = name;
    const line = mode === "verbose" && preview ? `⚙ ${name}: ${preview}` : `⚙ ${name}`;
    this.progressLines.push(line);
    this.shownAt = this.now();
    const { adapter, address } = this.options;
    const canEdit = adapter.canEdit && adapter.edit !== undefined;
    this.chain(async () => {
      if (canEdit && this.progressId) {
        await adapter.edit?.(address, this.progressId, this.progressLines.join("\n"));
      } else {
        const sent = await adapter.send({ ...address, text: canEdit ? this.progressLines.join("\n") : line });
        if (canEdit) this.progressId = sent.messageId ?? undefined;
      }
    });
  }

  private chain(step: () => Promise<void>): void {
    this.inFlight = this.inFlight.then(step).catch((error: unknown) => {
      this.options.log?.(`a progress update failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
