/**
 * `hermes acp`: the Agent Client Protocol over stdio. stdout carries nothing but protocol
 * frames; notices and logs go to stderr and `$HERMES_HOME/logs/`. `initialize` is answered
 * at once; the runtime (config, tools, session store) then opens in the background.
 */
import {
  type AgentConnection,
  type AgentContext,
  agent,
  type ClientCapabilities,
  ndJsonStream,
  RequestError,
} from "@agentclientprotocol/sdk/unstable";
import type { HermesRuntime } from "../runtime/runtime.js";
import { log } from "../util/log.js";
import { AUTH_API_KEY, AUTH_SETUP, initializeResponse } from "./capabilities.js";
import type { EarlyAnswer } from "./early-initialize.js";
import { isModeId } from "./modes.js";
import { PromptContentError } from "./prompt-content.js";
import type { AcpSession } from "./session.js";
import type { SessionRegistry } from "./sessions.js";
import { protocolStreams } from "./stdio.js";

export interface ServeAcpOptions {
  /** Opens the runtime (the CLI passes its own, with the user's profile and overrides). */
  openRuntime: () => Promise<HermesRuntime>;
  /** Where notices go (stderr). */
  notice: (line: string) => void;
  /** `initialize` already answered before the SDK loaded (see early-initialize). */
  early?: EarlyAnswer;
}

class RuntimeHolder {
  private opening: Promise<{ runtime: HermesRuntime; registry?: SessionRegistry }> | undefined;
  private registry: SessionRegistry | undefined;

  constructor(
    private readonly open: () => Promise<HermesRuntime>,
    private readonly client: () => AgentContext,
    private readonly capabilities: () => ClientCapabilities,
  ) {}

  start(): void {
    this.opening ??= (async () => {
      const [runtime, host] = await Promise.all([this.open(), import("./host.js")]);
      this.registry = await host.openSessions(runtime, this.client, this.capabilities);
      return { runtime, registry: this.registry };
    })();
    // Reported when a request needs the runtime; an unhandled rejection here would end the process.
    this.opening.catch(() => undefined);
  }

  /** The sessions, once the runtime is open; a missing provider or key asks the editor to authenticate. */
  async sessions(): Promise<SessionRegistry> {
    this.start();
    try {
      await this.opening;
    } catch (error) {
      this.opening = undefined;
      const message = error instanceof Error ? error.message : String(error);
      if ((error as Error).name === "UsageError") throw RequestError.authRequired({ reason: message }, message);
      throw RequestError.internalError({ reason: message }, message);
    }
    return this.registry!;
  }

  async close(): Promise<void> {
    const opened = await this.opening?.catch(() => undefined);
    await this.registry?.closeAll();
    await opened?.runtime.close();
  }
}

function sessionResponse(session: AcpSession) {
  return { modes: session.modes(), configOptions: session.configOptions() };
}

/** After the response that names the session reaches the editor, offer the slash commands. */
function announceAfterResponse(session: AcpSession): void {
  setImmediate(() => session.announceCommands());
}

export async function serveAcp(options: ServeAcpOptions): Promise<void> {
  const { output, input } = protocolStreams(options.early);
  let connection: AgentConnection | undefined;
  let clientCapabilities: ClientCapabilities = {};
  const holder = new RuntimeHolder(
    options.openRuntime,
    () => connection!.client,
    () => clientCapabilities,
  );

  const app = agent({ name: "hermes" })
    .onConnect((opened) => {
      connection = opened;
    })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      log("info", "acp", "initialize", { client: params.clientInfo?.name ?? "unknown" });
      // The runtime starts loading once the answer is on its way, not before it.
      setImmediate(() => holder.start());
      return initializeResponse();
    })
    .onRequest("authenticate", async ({ params }) => {
      if (params.methodId !== AUTH_API_KEY && params.methodId !== AUTH_SETUP) {
        throw RequestError.invalidParams({ methodId: params.methodId }, "unknown authentication method");
      }
      await holder.sessions();
      return {};
    })
    .onRequest("session/new", async ({ params }) => {
      const session = await (await holder.sessions()).create(params.cwd, params.mcpServers);
      announceAfterResponse(session);
      return { sessionId: session.id, ...sessionResponse(session) };
    })
    .onRequest("session/load", async ({ params }) => {
      const session = await (await holder.sessions()).load(params.sessionId, params.cwd, params.mcpServers, true);
      announceAfterResponse(session);
      return sessionResponse(session);
    })
    .onRequest("session/resume", async ({ params }) => {
      const session = await (await holder.sessions()).load(params.sessionId, params.cwd, params.mcpServers, false);
      announceAfterResponse(session);
      return sessionResponse(session);
    })
    .onRequest("session/fork", async ({ params }) => {
      const session = await (await holder.sessions()).fork(params.sessionId, params.cwd, params.mcpServers);
      announceAfterResponse(session);
      return { sessionId: session.id, ...sessionResponse(session) };
    })
    .onRequest("session/list", async ({ params }) => (await holder.sessions()).list(params.cwd, params.cursor))
    .onRequest("session/close", async ({ params }) => {
      await (await holder.sessions()).close(params.sessionId);
      return {};
    })
    .onRequest("session/set_mode", async ({ params }) => {
      if (!isModeId(params.modeId)) throw RequestError.invalidParams({ modeId: params.modeId }, "unknown mode");
      (await (await holder.sessions()).get(params.sessionId)).setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", async ({ params }) => {
      const session = await (await holder.sessions()).get(params.sessionId);
      const value = "value" in params ? params.value : undefined;
      if (params.configId === "mode" && isModeId(value)) {
        session.setMode(value);
      } else if (params.configId === "model" && typeof value === "string") {
        const offered = (await holder.sessions()).modelChoices();
        if (!offered.includes(value)) throw RequestError.invalidParams({ value }, "not one of the offered models");
        session.setModel(value);
      } else {
        throw RequestError.invalidParams({ configId: params.configId }, "unknown option or value");
      }
      return { configOptions: session.configOptions() };
    })
    .onRequest("session/prompt", async ({ params }) => {
      const session = await (await holder.sessions()).get(params.sessionId);
      try {
        return { stopReason: await session.prompt(params.prompt) };
      } catch (error) {
        if (error instanceof PromptContentError) throw RequestError.invalidParams({}, error.message);
        if (error instanceof RequestError) throw error;
        throw RequestError.internalError({}, (error as Error).message);
      }
    })
    .onNotification("session/cancel", async ({ params }) => {
      const sessions = await holder.sessions().catch(() => undefined);
      sessions?.liveSession(params.sessionId)?.cancel();
    });

  const opened = app.connect(ndJsonStream(output, input));
  log("info", "acp", "listening on stdio");
  await opened.closed;
  log("info", "acp", "connection closed");
  await holder.close();
}
