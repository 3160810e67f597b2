/**
 * A gateway on a temp HERMES_HOME with the built-in test adapter, a real runtime, a real
 * state.db and its own fake provider. `restart()` stops everything and starts again on the same
 * home, as a process restart would.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { GatewayRunner, type GatewayRunnerOptions } from "../../src/gateway/runner.js";
import { resolveGatewaySettings } from "../../src/gateway/settings.js";
import type { PlatformAdapter } from "../../src/gateway/types.js";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { type GatewayStore, openGatewayStore } from "../../src/state/gateway-store.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, FakeProviderOptions, RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export interface GatewayHarness {
  home: string;
  fake: FakeProvider;
  adapter: TestAdapter;
  runner: GatewayRunner;
  runtime: HermesRuntime;
  store: GatewayStore;
  logs: string[];
  /** Stops everything, runs `whileStopped` (what happens while the process is down), starts again. */
  restart(whileStopped?: () => void | Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface GatewayHarnessOptions {
  provider?: FakeProviderOptions;
  /** Extra config.yaml lines. */
  config?: string;
  /** `model.default` (default fake-model). */
  model?: string;
  /** `model.provider`, still sent to the fake provider (default custom). */
  modelProvider?: string;
  /** Environment the settings read (allowlists); default: user-1 allowed on the test platform. */
  env?: Record<string, string>;
  runner?: Partial<GatewayRunnerOptions>;
  adapter?: () => TestAdapter;
  /** Use this HERMES_HOME (a state.db another process left behind) instead of a new one. */
  home?: string;
  /** More platforms beside the test one (built anew on every start). */
  extraAdapters?: () => PlatformAdapter[];
}

export async function startGateway(options: GatewayHarnessOptions = {}): Promise<GatewayHarness> {
  const fake = await startFakeProvider(options.provider ?? {});
  const home = options.home ?? tempDir("hermes-gateway-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: ${options.model ?? "fake-model"}\n  provider: ${options.modelProvider ?? "custom"}\n  base_url: ${fake.url}/v1\n${options.config ?? ""}`,
  );
  const env = options.env ?? { TEST_ALLOWED_USERS: "user-1" };
  const logs: string[] = [];
  const open = async () => {
    const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true, platform: "test" });
    const store = await openGatewayStore(join(home, "state.db"));
    const adapter = options.adapter?.() ?? new TestAdapter();
    const runner = new GatewayRunner({
      runtime,
      store,
      settings: resolveGatewaySettings(runtime.config, env),
      adapters: [adapter, ...(options.extraAdapters?.() ?? [])],
      log: (line) => logs.push(line),
      reconnectBaseMs: 5,
      retryBaseMs: 5,
      ...options.runner,
    });
    await runner.start();
    return { runtime, store, adapter, runner };
  };
  let current = await open();
  const shut = async () => {
    await current.runner.stop();
    current.store.close();
    await current.runtime.close();
  };
  return {
    home,
    fake,
    logs,
    get adapter() {
      return current.adapter;
    },
    get runner() {
      return current.runner;
    },
    get runtime() {
      return current.runtime;
    },
    get store() {
      return current.store;
    },
    async restart(whileStopped) {
      await shut();
      await whileStopped?.();
      current = await open();
    },
    async close() {
      await shut();
      await fake.close();
    },
  };
}

/** Model requests only (no GET probes). */
export function modelRequests(fake: FakeProvider): RecordedRequest[] {
  return fake.requests.filter((r) => r.method === "POST");
}

/** The user messages a model request carried, in order. */
export function userTexts(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages.filter((m) => m.role === "user").map((m) => String(m.content));
}

/** A model reply that waits until the test opens the gate. */
export function gated(reply: ScriptStep): { step: ScriptStep; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const step: ScriptStep = async (req, index) => {
    await gate;
    return typeof reply === "function" ? reply(req, index) : reply;
  };
  return { step, open };
}

/** Resolves once the fake provider has received `count` model requests. */
export async function untilModelRequests(fake: FakeProvider, count: number): Promise<void> {
  while (modelRequests(fake).length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}
