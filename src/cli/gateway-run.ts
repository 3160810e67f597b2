/**
 * The foreground gateway process: open the runtime once, start the API server and the enabled
 * messaging platforms on it, keep $HERMES_HOME/gateway/state.json current, and on SIGTERM or
 * SIGINT drain (agent.restart_drain_timeout), send what the ledger holds, and stop.
 */
import { resolve as resolvePath } from "node:path";
import { loadConfigAsync } from "../state/config-load.js";
import { hermesHome } from "../state/paths.js";
import { log } from "../util/log.js";
import { redactSecrets } from "../util/redact.js";
import { UsageError } from "./exit-codes.js";

const say = (message: string) => process.stderr.write(`hermes gateway: ${redactSecrets(message)}\n`);

export interface RunGatewayOptions {
  /** Start even when the restart-loop guard says the gateway keeps dying. */
  force?: boolean;
}

const NOTHING_ENABLED =
  "nothing to run: no messaging platform is enabled and the API server is off. Set one up with " +
  "hermes gateway setup telegram (or discord, slack, mattermost, email), enable webhooks in ~/.hermes/config.yaml " +
  "(platforms.webhook.enabled: true), or set API_SERVER_ENABLED=true and API_SERVER_KEY in " +
  "~/.hermes/.env (hermes help api-server).";

export async function runGateway(options: RunGatewayOptions = {}): Promise<void> {
  const home = hermesHome();
  const { ApiServerSettingsError, assertUsableKeys, resolveApiServerSettings } = await import(
    "../api-server/settings.js"
  );
  const { enabledPlatforms } = await import("../gateway/platforms.js");
  const { config } = await loadConfigAsync({ home });
  // Before the platforms and the API server read their tokens from the environment.
  if (config.secrets.bitwarden.enabled) {
    const { loadBitwardenSecrets } = await import("../runtime/bitwarden-secrets.js");
    await loadBitwardenSecrets({ home, settings: config.secrets.bitwarden, notice: say });
  }
  let api: ReturnType<typeof resolveApiServerSettings>;
  try {
    api = resolveApiServerSettings(config, process.env);
    if (api.enabled) assertUsableKeys(api);
  } catch (error) {
    if (error instanceof ApiServerSettingsError) throw new UsageError(error.message);
    throw error;
  }
  const gatewayLog = (line: string) => {
    log("info", "gateway", line);
    say(line);
  };
  const { extensionsWanted } = await import("../runtime/plugins/candidates.js");
  const extensions = extensionsWanted(home, config)
    ? await (await import("../runtime/plugins/setup.js")).setUpExtensions({
        home,
        config,
        cwd: resolvePath(process.cwd(), config.terminal.cwd),
        notice: gatewayLog,
      })
    : undefined;
  let platforms: Awaited<ReturnType<typeof enabledPlatforms>>;
  try {
    platforms = await enabledPlatforms(config, {
      home,
      log: gatewayLog,
      ...(extensions ? { plugins: extensions.plugins.platforms } : {}),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const notice of platforms.notices) say(notice);
  if (!api.enabled && platforms.adapters.length === 0) throw new UsageError(NOTHING_ENABLED);

  const state = await import("../gateway/process-state.js");
  const guard = config.gateway.restart_loop_guard;
  const loop = state.checkRestartLoop(home, guard.max_restarts, guard.window_seconds * 1000);
  if (loop && !options.force) throw new UsageError(loop);

  // Installed before anything starts, so a signal during start-up also stops cleanly.
  let signalled: NodeJS.Signals | undefined;
  let wake: () => void = () => {};
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
    wake();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const { openRuntime } = await import("../runtime/runtime.js");
  const runtime = await openRuntime({
    platform: "api_server",
    toolsets: ["hermes-api-server"],
    skipDotEnv: true,
    cronTool: (await import("./cron-tool-backend.js")).loadCronToolBackend,
    callbacks: { onNotice: (message) => gatewayLog(message) },
    ...(extensions ? { extensions } : {}),
  });
  const stops: Array<() => Promise<void>> = [async () => runtime.close()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch((error: Error) => say(error.message));
  };
  let apiUrl: string | null = null;
  let runner: import("../gateway/runner.js").GatewayRunner | undefined;
  try {
    if (api.enabled) {
      const { startApiServer } = await import("../api-server/server.js");
      const server = await startApiServer({ runtime, settings: api, log: say }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EADDRINUSE") {
            throw new UsageError(
              `${api.host}:${api.port} is already in use: stop the other server or set API_SERVER_PORT`,
            );
          }
          throw error;
        },
      );
      stops.push(() => server.close());
      apiUrl = server.url;
      say(`API server listening on ${server.url} (model "${api.modelName}", ${runtime.provider}/${runtime.model})`);
    }
    const { openGatewayStore } = await import("../state/gateway-store.js");
    const store = await openGatewayStore(runtime.storeLocation);
    stops.push(async () => store.close());
    // Scheduled jobs: the ticker runs them (their deliveries wait in the ledger); the runtime
    // gives every session the cronjob tool.
    const { openCronStore } = await import("../state/cron-store.js");
    const cron = await openCronStore(runtime.storeLocation);
    stops.push(async () => cron.close());
    const { cronToolBackend } = await import("../cron/tool-backend.js");
    const { configuredHosts } = await import("../cron/job-fields.js");
    const { externalSkillDirs } = await import("../runtime/skill-dirs.js");
    // Behind the chats' /cron command.
    const scheduler = cronToolBackend(cron, {
      home,
      configuredHosts: configuredHosts(runtime.config),
      externalDirs: externalSkillDirs(runtime.config.skills.external_dirs, home),
    });
    if (platforms.adapters.length > 0) {
      const { GatewayRunner } = await import("../gateway/runner.js");
      const { resolveGatewaySettings } = await import("../gateway/settings.js");
      const { openCoordination } = await import("../state/coordination.js");
      const coordination = await openCoordination(runtime.storeLocation);
      stops.push(() => coordination.close());
      runner = new GatewayRunner({
        coordination,
        ...replicaTimings(process.env),
        runtime,
        store,
        settings: resolveGatewaySettings(runtime.config, process.env),
        adapters: platforms.adapters,
        log: gatewayLog,
        scheduler,
      });
      // The chats' send_message tool sends through this gateway's ledger at once.
      const { registerSendMessageTool } = await import("../tools/builtin/send-message.js");
      const { gatewaySendBackend } = await import("../gateway/send-backend.js");
      registerSendMessageTool(runtime.registry, gatewaySendBackend(runner));
      const started = runner;
      stops.push(() => started.stop(config.agent.restart_drain_timeout * 1000));
      await runner.start();
    }
    const { CronTicker } = await import("../cron/ticker.js");
    const seconds = Number(process.env.HERMES_CRON_TIMEOUT ?? 600);
    const ticker = new CronTicker({
      runtime,
      cron,
      gateway: store,
      home,
      timeoutMs: (Number.isFinite(seconds) ? seconds : 600) * 1000,
      log: gatewayLog,
    });
    stops.push(() => ticker.stop());
    await ticker.start();
  } catch (error) {
    await stopAll();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(`a platform's port is already in use: ${(error as Error).message}`);
    }
    throw error;
  }

  const startedAt = Date.now();
  const publish = () =>
    state.writeProcessState(home, {
      pid: process.pid,
      startedAt,
      updatedAt: Date.now(),
      apiServer: apiUrl,
      platforms: runner?.health() ?? {},
    });
  publish();
  const refresher = setInterval(publish, 10_000);
  refresher.unref();
  const names = platforms.adapters.map((a) => a.platform);
  say(`ready${names.length ? `; platforms: ${names.join(", ")}` : ""}${apiUrl ? `; API server ${apiUrl}` : ""}`);

  if (!signalled) await new Promise<void>((resolve) => (wake = resolve));
  say(`${signalled} received; stopping`);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  clearInterval(refresher);
  await stopAll();
  state.clearProcessState(home);
  say("stopped");
}

const REPLICA_TIMINGS = {
  ownershipCheckMs: "HERMES_GATEWAY_OWNERSHIP_CHECK_SECONDS",
  sessionLeaseMs: "HERMES_GATEWAY_SESSION_LEASE_SECONDS",
  orphanSweepMs: "HERMES_GATEWAY_ORPHAN_SWEEP_SECONDS",
  orphanGraceMs: "HERMES_GATEWAY_ORPHAN_GRACE_SECONDS",
  staleSendingMs: "HERMES_GATEWAY_STALE_SEND_SECONDS",
} as const;

/** Timings of gateway replicas sharing a PostgreSQL store, from the environment (seconds). */
export function replicaTimings(
  env: Record<string, string | undefined>,
): Partial<Record<keyof typeof REPLICA_TIMINGS, number>> {
  const timings: Partial<Record<keyof typeof REPLICA_TIMINGS, number>> = {};
  for (const [option, name] of Object.entries(REPLICA_TIMINGS) as Array<[keyof typeof REPLICA_TIMINGS, string]>) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const seconds = Number(raw);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(`${name} must be a positive number of seconds, not "${raw}"`);
    }
    timings[option] = seconds * 1000;
  }
  return timings;
}
