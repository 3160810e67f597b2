/** The foreground gateway process: open the runtime, start the API server, stop cleanly on a signal. */
import { loadConfigAsync } from "../state/config-load.js";
import { hermesHome } from "../state/paths.js";
import { redactSecrets } from "../util/redact.js";
import { UsageError } from "./exit-codes.js";

const say = (message: string) => process.stderr.write(`hermes gateway: ${redactSecrets(message)}\n`);

export async function runGateway(): Promise<void> {
  const { ApiServerSettingsError, assertUsableKeys, resolveApiServerSettings } = await import(
    "../api-server/settings.js"
  );
  const { config } = await loadConfigAsync({ home: hermesHome() });
  let settings: ReturnType<typeof resolveApiServerSettings>;
  try {
    settings = resolveApiServerSettings(config, process.env);
    if (!settings.enabled) {
      throw new UsageError(
        "nothing to run: the API server is off and no messaging platform is available yet. " +
          "Set API_SERVER_ENABLED=true and API_SERVER_KEY in ~/.hermes/.env (hermes help api-server).",
      );
    }
    assertUsableKeys(settings);
  } catch (error) {
    if (error instanceof ApiServerSettingsError) throw new UsageError(error.message);
    throw error;
  }

  const { openRuntime } = await import("../runtime/runtime.js");
  const runtime = await openRuntime({
    platform: "api_server",
    toolsets: ["hermes-api-server"],
    skipDotEnv: true,
    callbacks: { onNotice: (message) => say(message) },
  });
  const { startApiServer } = await import("../api-server/server.js");
  let server: Awaited<ReturnType<typeof startApiServer>>;
  try {
    server = await startApiServer({ runtime, settings, log: say });
  } catch (error) {
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      throw new UsageError(
        `${settings.host}:${settings.port} is already in use: stop the other server or set API_SERVER_PORT`,
      );
    }
    throw error;
  }
  say(`API server listening on ${server.url} (model "${settings.modelName}", ${runtime.provider}/${runtime.model})`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      say(`${signal} received; stopping`);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
  await runtime.close();
}
