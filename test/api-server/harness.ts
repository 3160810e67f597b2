/**
 * An API server on a temp HERMES_HOME, talking to its own fake provider, on an ephemeral
 * loopback port. Tests drive it over real HTTP.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApiServerHandle, startApiServer } from "../../src/api-server/server.js";
import type { ApiServerSettings } from "../../src/api-server/settings.js";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, FakeProviderOptions, RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export const KEY = "test-key-0123456789abcdef";
export const OTHER_KEY = "other-key-fedcba9876543210";

export interface Harness {
  url: string;
  home: string;
  fake: FakeProvider;
  runtime: HermesRuntime;
  server: ApiServerHandle;
  /** fetch against the server with the first key (unless headers say otherwise). */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** Stop the server and open a new one on the same home (same state.db). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  provider?: FakeProviderOptions;
  settings?: Partial<ApiServerSettings>;
  /** Extra config.yaml lines. */
  config?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = await startFakeProvider(options.provider ?? {});
  const home = tempDir("hermes-api-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n${options.config ?? ""}`,
  );
  const settings: ApiServerSettings = {
    enabled: true,
    host: "127.0.0.1",
    port: 0,
    keys: [KEY],
    corsOrigins: [],
    modelName: "hermes-agent",
    maxConcurrentRuns: 10,
    maxBodyBytes: 1024 * 1024,
    ...options.settings,
  };
  const open = async () => {
    const runtime = await openRuntime({
      home,
      localServers: false,
      skipDotEnv: true,
      platform: "api_server",
      toolsets: ["hermes-api-server"],
    });
    const server = await startApiServer({ runtime, settings });
    return { runtime, server };
  };
  let current = await open();
  const harness: Harness = {
    get url() {
      return current.server.url;
    },
    home,
    fake,
    get runtime() {
      return current.runtime;
    },
    get server() {
      return current.server;
    },
    request(path, init = {}) {
      const { key = KEY, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
      if (rest.body && !headers.has("content-type")) headers.set("content-type", "application/json");
      return fetch(`${current.server.url}${path}`, { ...rest, headers });
    },
    async restart() {
      await current.server.close();
      await current.runtime.close();
      current = await open();
    },
    async close() {
      await current.server.close();
      await current.runtime.close();
      await fake.close();
    },
  };
  return harness;
}

/** Requests the server sent to the model (the runtime's start-up probe of the model list aside). */
export function modelRequests(h: Harness): RecordedRequest[] {
  return h.fake.requests.filter((r) => r.method === "POST");
}

/** A script step that answers only when `release()` is called; `arrived` resolves when it is reached. */
export function gate(reply: ScriptedTurn = { text: "finally" }) {
  let release!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    release,
    arrived,
    step: async () => {
      reached();
      await opened;
      return reply;
    },
  };
}
