/** Health, models, capabilities, toolsets and skills: what a front end asks before it chats. */
import type { Hono } from "hono";
import { getToolset, listToolsets, resolveToolset } from "../../tools/toolsets.js";
import { packageVersion } from "../../util/version.js";
import type { HonoEnv, ServerContext } from "../context.js";

export function registerPublicHealth(app: Hono<HonoEnv>): void {
  const health = { status: "ok" };
  app.get("/health", (c) => c.json(health));
  app.get("/v1/health", (c) => c.json(health));
}

export function registerInfo(app: Hono<HonoEnv>, ctx: ServerContext): void {
  app.get("/health/detailed", async (c) => {
    const memory = process.memoryUsage();
    return c.json({
      status: "ok",
      version: packageVersion(),
      uptime_seconds: Math.round((Date.now() - ctx.startedAt) / 1000),
      model: { name: ctx.settings.modelName, upstream: ctx.runtime.model, provider: ctx.runtime.provider },
      runs: { active: ctx.slots.inUse, limit: ctx.slots.limit },
      agents_cached: ctx.runtime.cachedKeys().length,
      memory: { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed },
    });
  });

  app.get("/v1/models", (c) =>
    c.json({
      object: "list",
      data: [
        { id: ctx.settings.modelName, object: "model", created: Math.floor(ctx.startedAt / 1000), owned_by: "hermes" },
      ],
    }),
  );

  app.get("/v1/capabilities", (c) =>
    c.json({
      object: "capabilities",
      model: ctx.settings.modelName,
      endpoints: {
        chat_completions: { streaming: true, reasoning_content: true, sessions: true },
        responses: { streaming: true, previous_response_id: true, conversation: true, store: true },
        runs: { events: true, resume: "Last-Event-ID", stop: true, steer: true, approval: true, idempotency: true },
        sessions: { list: true, fork: true },
      },
      headers: { session_id: "X-Hermes-Session-Id", session_key: "X-Hermes-Session-Key" },
      limits: { max_concurrent_runs: ctx.settings.maxConcurrentRuns, max_body_bytes: ctx.settings.maxBodyBytes },
    }),
  );

  app.get("/v1/toolsets", async (c) => {
    const enabled = new Set(ctx.runtime.defaultToolsets());
    const data = listToolsets().map((name) => ({
      name,
      description: getToolset(name)?.description ?? "",
      tools: resolveToolset(name),
      enabled: enabled.has(name),
    }));
    return c.json({ object: "list", data });
  });

  app.get("/v1/skills", async (c) => {
    const { discoverSkills } = await import("../../tools/skills/discovery.js");
    const { externalSkillDirs } = await import("../../runtime/skill-dirs.js");
    const { home, cwd, config } = ctx.runtime;
    const { skills } = discoverSkills({
      home,
      cwd,
      externalDirs: externalSkillDirs(config.skills.external_dirs, home),
    });
    const data = skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      ...(skill.category ? { category: skill.category } : {}),
    }));
    return c.json({ object: "list", data });
  });
}
