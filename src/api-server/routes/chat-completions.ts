/**
 * `POST /v1/chat/completions`: stateless by default (the client sends the whole conversation
 * and gets a new stored session back), or continuing a stored session named by
 * `X-Hermes-Session-Id`. The stream carries only standard chunks; tool progress lives in the
 * Runs API.
 */
import type { Hono } from "hono";
import {
  completionId,
  completionObject,
  contentChunk,
  finalChunk,
  firstChunk,
  reasoningChunk,
  SSE_DONE,
  sseData,
  usageChunk,
} from "../chat-chunks.js";
import { parseChatRequest } from "../chat-request.js";
import { type HonoEnv, prepareTurn, type ServerContext } from "../context.js";
import { errorBody } from "../errors.js";
import { readJson, SESSION_HEADER, sessionHeaders } from "../http.js";
import { openSse } from "../sse.js";
import { runTurn } from "../turn-stream.js";

export function registerChatCompletions(app: Hono<HonoEnv>, ctx: ServerContext): void {
  app.post("/v1/chat/completions", async (c) => {
    const namespace = c.get("namespace");
    const request = parseChatRequest(await readJson(c));
    const turn = await prepareTurn(ctx, {
      namespace,
      sessionId: c.req.header(SESSION_HEADER),
      history: request.history,
      memoryScope: c.req.header("x-hermes-session-key"),
      instructions: request.instructions,
    });
    const model = ctx.settings.modelName;
    const id = completionId();
    const created = Math.floor(Date.now() / 1000);
    const base = { id, created, model };
    for (const [name, value] of Object.entries(sessionHeaders(turn.sessionId))) c.header(name, value);

    if (!request.stream) {
      const result = await runTurn(ctx, namespace, turn, request.input, {}, c.req.raw.signal);
      c.header(SESSION_HEADER, result.sessionId);
      if (result.error && !result.finalResponse) {
        return c.json(errorBody(502, `the agent could not finish: ${result.error}`, { code: "agent_error" }), 502);
      }
      return c.json(completionObject(base, result));
    }

    const out = openSse(c);
    try {
      await out.write(sseData(firstChunk(base)));
      const result = await runTurn(
        ctx,
        namespace,
        turn,
        request.input,
        {
          text: (delta) => out.write(sseData(contentChunk(base, delta))),
          reasoning: (delta) => out.write(sseData(reasoningChunk(base, delta))),
        },
        out.closed,
      );
      if (out.closed.aborted) return out.response;
      if (result.error && !result.finalResponse) {
        await out.write(
          sseData(errorBody(502, `the agent could not finish: ${result.error}`, { code: "agent_error" })),
        );
      } else {
        await out.write(sseData(finalChunk(base, result.interrupted ? "length" : "stop")));
        if (request.includeUsage) await out.write(sseData(usageChunk(base, result.usage)));
      }
      await out.write(SSE_DONE);
    } catch (error) {
      // The status line is gone already: the failure travels as the stream's last event.
      await out.write(sseData(errorBody(500, `the run failed: ${(error as Error).message}`)));
    } finally {
      out.end();
    }
    return out.response;
  });
}
