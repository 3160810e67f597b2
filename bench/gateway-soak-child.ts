/**
 * Child process of the gateway soak: `node --expose-gc --import tsx bench/gateway-soak-child.ts
 * <fake-url> <sessions> <waves>`. Runs the gateway with the built-in test platform on a temp
 * HERMES_HOME; each wave sends one message to every session at once and waits for every reply.
 * Prints one JSON line: per-message latency (inject to reply sent), the same requests made
 * straight to the fake provider, RSS and heap after a full GC after warm-up and at the end, and how many
 * replies were missing or doubled.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestAdapter } from "../src/gateway/adapters/test-adapter.js";
import { GatewayRunner } from "../src/gateway/runner.js";
import { resolveGatewaySettings } from "../src/gateway/settings.js";
import { openRuntime } from "../src/runtime/runtime.js";
import { openGatewayStore } from "../src/state/gateway-store.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const collect = gc;
const memory = () => {
  collect();
  collect();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
};

const [url, sessionsArg, wavesArg] = process.argv.slice(2);
if (!url) throw new Error("usage: gateway-soak-child.ts <fake-url> [sessions] [waves]");
const sessions = Number(sessionsArg ?? 50);
const waves = Number(wavesArg ?? 20);
const WARM_UP_WAVES = 2;

const home = mkdtempSync(join(tmpdir(), "hermes-bench-soak-"));
writeFileSync(
  join(home, "config.yaml"),
  [
    `model:\n  default: m\n  provider: custom\n  base_url: ${url}/v1`,
    `gateway:\n  max_concurrent_runs: ${sessions}`,
    "display:\n  tool_progress: 'off'\n  platforms:\n    test:\n      streaming: false",
    "",
  ].join("\n"),
);
const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true, platform: "test" });
const store = await openGatewayStore(join(home, "state.db"));
const adapter = new TestAdapter();
const runner = new GatewayRunner({
  runtime,
  store,
  settings: resolveGatewaySettings(runtime.config, { GATEWAY_ALLOW_ALL_USERS: "true" }),
  adapters: [adapter],
});
await runner.start();

const sentAt = new Map<string, number>();
const latencies: number[] = [];
const direct: number[] = [];
const replies = new Map<string, number>();
let delivered = 0;
let onReply: (() => void) | undefined;
const send = adapter.send.bind(adapter);
adapter.send = async (message) => {
  const result = await send(message);
  const marker = /marker (\S+)/.exec(message.text)?.[1];
  if (marker) {
    replies.set(marker, (replies.get(marker) ?? 0) + 1);
    const started = sentAt.get(marker);
    if (started !== undefined) latencies.push(performance.now() - started);
  }
  delivered += 1;
  onReply?.();
  return result;
};

async function directCall(marker: string): Promise<void> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: marker }] }),
  });
  await res.text();
  direct.push(performance.now() - started);
}

let warm = { rss: 0, heapUsed: 0 };
let half = { rss: 0, heapUsed: 0 };
for (let wave = 0; wave < waves; wave++) {
  const expected = delivered + sessions;
  const done = new Promise<void>((resolve) => {
    onReply = () => {
      if (delivered >= expected) resolve();
    };
  });
  for (let s = 0; s < sessions; s++) {
    const marker = `w${wave}s${s}`;
    sentAt.set(marker, performance.now());
    adapter.inject({ chatId: `chat-${s}`, userId: `user-${s}`, messageId: `${wave}-${s}`, text: marker });
  }
  await done;
  await Promise.all(Array.from({ length: sessions }, (_, s) => directCall(`direct-w${wave}s${s}`)));

  if (wave === waves / 2 - 1) half = memory();
  if (wave === WARM_UP_WAVES - 1) {
    latencies.length = 0;
    direct.length = 0;
    warm = memory();
  }
}
const end = memory();
const markers = sessions * waves;
let missing = 0;
let doubled = 0;
for (let wave = 0; wave < waves; wave++) {
  for (let s = 0; s < sessions; s++) {
    const count = replies.get(`w${wave}s${s}`) ?? 0;
    if (count === 0) missing += 1;
    if (count > 1) doubled += 1;
  }
}
await runner.stop();
store.close();
await runtime.close();
rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify({ markers, missing, doubled, latencies, direct, warm, half, end }));
