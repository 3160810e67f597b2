/**
 * The Responses API: `POST /v1/responses` (stored unless `store: false`; continues a stored
 * response with `previous_response_id`, or the newest response of a named `conversation`),
 * `GET` and `DELETE /v1/responses/{id}`. Tool calls the agent made come back as completed
 * `function_call` items followed by their outputs.
 */
import type { Hono } from "hono";
import type { RunResult } from "../../agent/run-types.js";
import { type HonoEnv, prepareTurn, type ServerContext } from "../context.js";
import { ApiError, errorBody } from "../errors.js";
import { readJson, SESSION_HEADER } from "../http.js";
import { messageCount, newMessagesOf, startOfChain } from "../responses-chain.js";
import { buildResponseObject, parseResponsesRequest, ResponseStreamEvents, responseId } from "../responses-shapes.js";
import { openSse } from "../sse.js";
import { runTurn } from "../turn-stream.js";

export function registerResponses(app: Hono<HonoEnv>, ctx: ServerContext): void {
  app.post("/v1/responses", async (c) => {
    const namespace = c.get("namespace");
    const request = parseResponsesRequest(await readJson(c));
    const chain = await startOfChain(ctx, namespace, request);
    const turn = await prepareTurn(ctx, {
      namespace,
      sessionId: chain.sessionId,
      ...(chain.history ? { history: chain.history } : {}),
      memoryScope: c.req.header("x-hermes-session-key"),
      instructions: request.instructions,
      persist: request.store,
      compressInPlace: false,
    });
    const id = responseId();
    const createdAt = Math.floor(Date.now() / 1000);
    const model = ctx.settings.modelName;
    const previousResponseId = chain.previous?.id ?? null;
    if (request.store) c.header(SESSION_HEADER, turn.sessionId);

    const finish = async (result: RunResult) => {
      const failed = Boolean(result.error && !result.finalResponse);
      const body = buildResponseObject({
        id,
        model,
        createdAt,
        status: failed ? "failed" : result.interrupted ? "incomplete" : "completed",
        newMessages: newMessagesOf(result.messages),
        instructions: request.instructions || null,
        previousResponseId,
        usage: result.usage,
        ...(failed ? { error: { code: "server_error", message: `the agent could not finish: ${result.error}` } } : {}),
      });
      if (request.store && !failed) {
        await ctx.store.saveResponse({
          id,
          namespace,
          sessionId: result.sessionId,
          messageCount: await messageCount(ctx, result.sessionId),
          previousResponseId,
          conversation: request.conversation ?? chain.previous?.conversation ?? null,
          body,
          createdAt: Date.now(),
        });
      }
      return { body, failed };
    };

    if (!request.stream) {
      const result = await runTurn(ctx, namespace, turn, request.input, {}, c.req.raw.signal);
      const { body, failed } = await finish(result);
      if (failed) throw new ApiError(502, `the agent could not finish: ${result.error}`, { code: "agent_error" });
      return c.json(body);
    }

    const out = openSse(c);
    try {
      const events = new ResponseStreamEvents({ id, model, createdAt, previousResponseId });
      for (const event of events.start()) await out.write(event);
      const result = await runTurn(
        ctx,
        namespace,
        turn,
        request.input,
        {
          text: (delta) => out.write(events.textDelta(delta)),
          toolStart: (call) =>
            out.write(
              events.toolCall({
                id: call.callId,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
              }),
            ),
          toolEnd: (done) => out.write(events.toolResult(done.callId, done.result)),
        },
        out.closed,
      );
      if (out.closed.aborted) return out.response;
      const { body } = await finish(result);
      for (const event of events.finish(body)) await out.write(event);
    } catch (error) {
      // The status line is gone already: the failure travels as the stream's last event.
      const { message, code, param } = errorBody(500, `the run failed: ${(error as Error).message}`).error;
      await out.write(`event: error\ndata: ${JSON.stringify({ type: "error", code, message, param })}\n\n`);
    } finally {
      out.end();
    }
    return out.response;
  });

  app.get("/v1/responses/:id", async (c) => {
    const found = await ctx.store.getResponse(c.get("namespace"), c.req.param("id"));
    if (!found)
      throw new ApiError(404, `no stored response with id "${c.req.param("id")}"`, { code: "response_not_found" });
    return c.json(found.body as object);
  });

  app.delete("/v1/responses/:id", async (c) => {
    const id = c.req.param("id");
    if (!(await ctx.store.deleteResponse(c.get("namespace"), id))) {
      throw new ApiError(404, `no stored response with id "${id}"`, { code: "response_not_found" });
    }
    return c.json({ id, object: "response.deleted", deleted: true });
  });
}
