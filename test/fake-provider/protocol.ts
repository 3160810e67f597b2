/** What each wire protocol module provides to the server. */
import type { PlannedTurn } from "./turn.js";
import type { Protocol } from "./types.js";

/** One unit of a streamed reply: an SSE event or an event-stream frame. */
export type Chunk = string | Uint8Array;

export interface ReplyContext {
  /** The model named by the request (body or path), or a default. */
  model: string;
  /** The parsed request body (an empty object when it was not a JSON object). */
  body: Record<string, unknown>;
  /** Unix seconds, shared by every object of the reply. */
  created: number;
  /** A fresh id with the given prefix, unique within this server. */
  newId(prefix: string): string;
}

export interface ErrorReply {
  body: unknown;
  headers: Record<string, string>;
}

export interface ProtocolAdapter {
  protocol: Protocol;
  streamContentType: string;
  /** The complete reply of a non-streaming request. */
  jsonReply(turn: PlannedTurn, ctx: ReplyContext): unknown;
  /** Every chunk of a streaming reply, in order, already encoded. */
  streamChunks(turn: PlannedTurn, ctx: ReplyContext): Chunk[];
  /** A chunk whose payload is not valid JSON, framed like a real one. */
  malformedChunk(): Chunk;
  /** The provider's error body and headers for an HTTP status. */
  errorReply(status: number, message: string): ErrorReply;
}
