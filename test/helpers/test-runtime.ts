/**
 * A runtime on a temp HERMES_HOME whose config.yaml points at a fresh scripted fake provider,
 * for tests that go through `openRuntime` as a surface does.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadCronToolBackend } from "../../src/cli/cron-tool-backend.js";
import { type HermesRuntime, openRuntime, type RuntimeOverrides } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export interface TestRuntime {
  runtime: HermesRuntime;
  fake: FakeProvider;
  home: string;
  /** Every notice the runtime gave, in order. */
  notices: string[];
  close(): Promise<void>;
}

export interface TestRuntimeOptions {
  script?: ScriptStep[];
  /** config.yaml lines after the model section. */
  config?: string;
  /** An existing home (a later session on the same state). */
  home?: string;
  overrides?: RuntimeOverrides;
  /** Runs on the home before the runtime opens (install plugins, seed files). */
  setup?: (home: string) => void;
  /** Told each notice as it is given (they are collected in `notices` too). */
  onNotice?: (message: string) => void;
  /** Open as a one-shot run does (MCP servers waited for in full). */
  singleTurn?: boolean;
  /** Give sessions the cronjob tool, as the terminal and the gateway do. */
  cronTool?: boolean;
}

export async function openTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const fake = await startFakeProvider({ script: options.script ?? [], fallback: { text: "ok" } });
  const home = options.home ?? tempDir("hermes-runtime-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n${options.config ?? ""}`,
  );
  options.setup?.(home);
  const notices: string[] = [];
  const runtime = await openRuntime({
    home,
    localServers: false,
    skipDotEnv: true,
    ...(options.singleTurn ? { singleTurn: true } : {}),
    ...(options.cronTool ? { cronTool: loadCronToolBackend } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    callbacks: {
      onNotice: (message) => {
        notices.push(message);
        options.onNotice?.(message);
      },
    },
  });
  return {
    runtime,
    fake,
    home,
    notices,
    close: async () => {
      await runtime.close();
      await fake.close();
    },
  };
}
