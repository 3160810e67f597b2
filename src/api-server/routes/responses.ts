/**
 * The Responses API: `POST /v1/responses` (stored unless `store: false`; continues a stored
 * response with `previous_response_id`, or the newest response of a named `conversation`),
 * `GET` and `DELETE /v1/responses/{id}`. Tool calls the agent made come back as completed
 * `function_call` items followed by their outputs.
 */
import type { Hono } from "hono";
import { stream } from "hono/streaming";
import type { RunResult } from "../../agent/run-types.js";
import { type HonoEnv, prepareTurn, type ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { readJson, SESSION_HEADER } from "../http.js";
import { messageCount, newMessagesOf, startOfChain } from "../responses-chain.js";
import { buildResponseObject, parseResponsesRequest, ResponseStreamEvents, responseId } from "../responses-shapes.js";
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

    c.header("content-type", "text/event-stream; charset=utf-8");
    c.header("cache-control", "no-cache");
    return stream(c, async (out) => {
      const aborted = new AbortController();
      out.onAbort(() => aborted.abort());
      const events = new ResponseStreamEvents({ id, model, createdAt, previousResponseId });
      for (const event of events.start()) await out.write(event);
      const result = await runTurn(
        ctx,
        namespace,
        turn,
        request.input,
        { text: (delta) => out.write(events.textDelta(delta)) },
        aborted.signal,
      );
      if (aborted.signal.aborted) return;
      const { body } = await finish(result);
      for (const event of events.finish(body)) await out.write(event);
    });
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
