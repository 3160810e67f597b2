/**
 * The HTTP application: CORS (only for the configured origins), a body-size cap, bearer auth on
 * everything but the two plain health checks, OpenAI-shaped errors, then the routes.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { HonoEnv, ServerContext } from "./context.js";
import { ApiError, errorBody } from "./errors.js";
import { BODY_LIMIT_KEY } from "./http.js";
import { registerChatCompletions } from "./routes/chat-completions.js";
import { registerInfo, registerPublicHealth } from "./routes/info.js";
import { registerResponses } from "./routes/responses.js";
import { registerRuns } from "./routes/runs.js";
import { registerSessions } from "./routes/sessions.js";
import type { RunManager } from "./runs/manager.js";

const REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "X-Hermes-Session-Id",
  "X-Hermes-Session-Key",
  "Idempotency-Key",
  "Last-Event-ID",
];
const EXPOSED_HEADERS = ["X-Hermes-Session-Id", "Idempotency-Replayed", "Retry-After"];

export interface AppOptions {
  /** Where unexpected errors are reported (never to the client). */
  onError?: (error: Error) => void;
}

export function createApp(ctx: ServerContext, runs: RunManager, options: AppOptions = {}): Hono<HonoEnv> {
  const app = new Hono<HonoEnv>();

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(error.body, error.status as 400);
    }
    options.onError?.(error);
    return c.json(errorBody(500, "the server failed to handle this request; see the server log"), 500);
  });
  app.notFound((c) => c.json(errorBody(404, `no route for ${c.req.method} ${c.req.path}`), 404));

  if (ctx.settings.corsOrigins.length > 0) {
    const origins = ctx.settings.corsOrigins;
    app.use(
      "*",
      cors({
        origin: origins.includes("*") ? "*" : origins,
        allowHeaders: REQUEST_HEADERS,
        exposeHeaders: EXPOSED_HEADERS,
        allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
        maxAge: 600,
      }),
    );
  }

  registerPublicHealth(app);

  app.use("*", async (c, next) => {
    const namespace = ctx.keys.authenticate(c.req.header("authorization"));
    if (!namespace) {
      c.header("www-authenticate", 'Bearer realm="hermes"');
      return c.json(
        errorBody(401, "missing or invalid API key: send Authorization: Bearer <API_SERVER_KEY>", {
          code: "invalid_api_key",
        }),
        401,
      );
    }
    c.set("namespace", namespace);
    await next();
  });

  app.use("*", async (c, next) => {
    c.set(BODY_LIMIT_KEY, ctx.settings.maxBodyBytes);
    await next();
  });

  registerInfo(app, ctx);
  registerChatCompletions(app, ctx);
  registerResponses(app, ctx);
  registerRuns(app, ctx, runs);
  registerSessions(app, ctx);
  return app;
}
