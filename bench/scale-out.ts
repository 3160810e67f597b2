/**
 * Scale-out figures on PostgreSQL (a throwaway cluster, as the tests start): messages per second
 * through one and three `hermes gateway run` replicas (the `bus` test platform, the zero-latency
 * fake model), the time a standby replica takes to poll a Telegram bot after the owner is
 * SIGKILLed, and full-text search p50/p95 at 1M messages on PostgreSQL beside SQLite.
 * Run alone with: node --import tsx bench/scale-out.ts   (needs `npm run build` first)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readProcessState } from "../src/gateway/process-state.js";
import type { SessionStore } from "../src/state/session-store.js";
import { SqliteSessionStore } from "../src/state/sqlite-session-store.js";
import type { FakeProvider } from "../test/fake-provider/types.js";
import { until } from "../test/fakes/slack/gateway.js";
import { ALICE, FakeTelegram } from "../test/fakes/telegram/server.js";
import { Bus, type BusMessage } from "../test/gateway/bus.js";
import { startBusReplica, stopChildren } from "../test/gateway/bus-replicas.js";
import { postgresOrSkip, type TestPostgres } from "../test/helpers/postgres.js";
import { startBenchFake } from "./fake.js";
import { fill, messageMaker, searchLatency } from "./session-store.js";
import { median, printTable, type Row } from "./stats.js";

const CHATS = 30;
const PER_CHAT = 20;

function lastUserText(body: Record<string, unknown>): string {
  const users = (body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "user");
  return users.at(-1)?.content ?? "";
}

function tempHome(prefix: string, homes: string[]): string {
  const home = mkdtempSync(join(tmpdir(), prefix));
  homes.push(home);
  return home;
}

/**
 * Messages through `replicas` gateway processes: 30 chats, each sending its next message once the
 * last is answered, consecutive messages to different replicas. One message per chat first, to
 * warm up, not counted.
 */
async function throughput(db: TestPostgres, model: FakeProvider, replicas: number): Promise<number> {
  const url = await db.database();
  const bus = new Bus();
  await bus.start();
  const homes: string[] = [];
  const names = Array.from({ length: replicas }, (_, i) => `r${i}`);
  const children = names.map((name) => {
    bus.addReplica(name);
    return startBusReplica({
      name,
      home: tempHome("hermes-bench-replica-", homes),
      databaseUrl: url,
      modelUrl: model.url,
      busUrl: bus.url,
    });
  });
  try {
    const answered = new Set<string>();
    let read = 0;
    const next = new Map<number, number>();
    const message = (chat: number, index: number): BusMessage => ({
      platform: "bus",
      chatId: `chat-${chat}`,
      chatType: "dm",
      userId: `user-${chat}`,
      messageId: `c${chat}-m${index}`,
      text: `c${chat}-m${index}`,
    });
    const send = (chat: number) => {
      const index = next.get(chat) ?? 0;
      if (index > PER_CHAT) return;
      next.set(chat, index + 1);
      bus.hand(message(chat, index), names[(chat + index) % names.length]!);
    };
    let warm = 0;
    let started = 0;
    const done = new Promise<number>((resolve) => {
      bus.onChange(() => {
        for (; read < bus.sent.length; read++) {
          const id = /^answer (c\d+-m\d+)$/.exec(bus.sent[read]!.text)?.[1];
          if (!id || answered.has(id)) continue;
          answered.add(id);
          const chat = Number(id.slice(1, id.indexOf("-")));
          if (id.endsWith("-m0")) {
            warm += 1;
            if (warm < CHATS) continue;
            // Every chat is warm: the timed part starts.
            started = performance.now();
            for (let c = 0; c < CHATS; c++) send(c);
            continue;
          }
          if (answered.size === CHATS * (PER_CHAT + 1)) resolve(performance.now() - started);
          else send(chat);
        }
      });
    });
    for (let chat = 0; chat < CHATS; chat++) send(chat);
    const ms = await done;
    return (CHATS * PER_CHAT) / (ms / 1000);
  } finally {
    await stopChildren(children);
    await bus.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Two gateway processes with one Telegram bot, the ownership check at its default (5 s): the
 * owner is SIGKILLed and a message sent at once. Returns ms until the standby polls, and until
 * the message is answered.
 */
async function failover(db: TestPostgres, model: FakeProvider): Promise<{ poll: number; answer: number }> {
  const url = await db.database();
  const telegram = await FakeTelegram.start();
  const homes: string[] = [];
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const home = tempHome("hermes-bench-failover-", homes);
      writeFileSync(
        join(home, "config.yaml"),
        `model:\n  default: m\n  provider: custom\n  base_url: ${model.url}/v1\nstore:\n  backend: postgres\n  postgres_url: ${url}\n`,
      );
      children.push(
        spawn(process.execPath, ["dist/cli/main.js", "gateway", "run"], {
          env: {
            ...process.env,
            HERMES_HOME: home,
            OPENROUTER_API_KEY: "",
            TELEGRAM_BOT_TOKEN: telegram.token,
            TELEGRAM_API_ROOT: telegram.url,
            TELEGRAM_ALLOWED_USERS: String(ALICE.id),
          },
          stdio: "ignore",
        }),
      );
    }
    const health = () => homes.map((home) => readProcessState(home)?.platforms.telegram?.state);
    await until(() => health().includes("connected") && health().includes("standby"), "an owner and a standby");
    const owner = children[health().indexOf("connected")]!;
    const killedAt = performance.now();
    owner.kill("SIGKILL");
    telegram.userMessage({ text: "are you there" });
    const poll = await telegram.waitForCall((call) => call.method === "getUpdates" && call.atHr > killedAt, 60_000);
    await until(() => telegram.messages.some((m) => m.text === "answer are you there"), "the answer");
    return { poll: poll.atHr - killedAt, answer: performance.now() - killedAt };
  } finally {
    await stopChildren(children);
    await telegram.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

/** Loads 1M messages (unless a 100k probe says the load would overrun the budget) and times searches. */
async function searchAtMillion(store: SessionStore, budgetMs: number): Promise<string> {
  const maker = messageMaker(3);
  const probeMs = await fill(store, 100_000, maker);
  if (probeMs * 10 > budgetMs) return `skipped: loading 1M would take ~${Math.round(probeMs / 100)} s`;
  const loadMs = probeMs + (await fill(store, 900_000, maker));
  const latency = await searchLatency(store, maker.words);
  return `p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms (load ${(loadMs / 1000).toFixed(0)} s)`;
}

export async function benchScaleOut(options: { budgetMs?: number } = {}): Promise<Row[]> {
  const db = postgresOrSkip();
  if (!db) return [{ figure: "scale-out", value: "skipped: PostgreSQL is not installed" }];
  const model = await startBenchFake({
    fallback: (req) => {
      model.requests.length = 0;
      return { text: `answer ${lastUserText(req.body)}` };
    },
  });
  const rows: Row[] = [];
  try {
    const one = await throughput(db, model, 1);
    const three = await throughput(db, model, 3);
    rows.push(
      { figure: `messages/s through 1 replica (${CHATS} chats, answered one at a time)`, value: one.toFixed(0) },
      {
        figure: "messages/s through 3 replicas (same machine)",
        value: three.toFixed(0),
        baseline: `${one.toFixed(0)} (1 replica)`,
        ratio: `${(three / one).toFixed(2)}×`,
      },
    );
    const failovers = [];
    for (let round = 0; round < 3; round++) failovers.push(await failover(db, model));
    rows.push({
      figure: "Telegram failover: owner SIGKILLed → standby polling (check every 5 s)",
      value: `${(median(failovers.map((f) => f.poll)) / 1000).toFixed(1)} s`,
      baseline: `median of 3; to the answer of a message sent at the kill: ${(median(failovers.map((f) => f.answer)) / 1000).toFixed(1)} s`,
    });
  } finally {
    await model.close();
  }
  const budgetMs = options.budgetMs ?? 1_200_000;
  const { PgSessionStore } = await import("../src/state/postgres/session-store.js");
  const pgStore = await PgSessionStore.open(await db.database());
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-fts-"));
  const sqliteStore = await SqliteSessionStore.open(join(dir, "1m.db"));
  try {
    const onPostgres = await searchAtMillion(pgStore, budgetMs);
    const onSqlite = await searchAtMillion(sqliteStore, budgetMs);
    rows.push({
      figure: "FTS search, 1M messages, PostgreSQL (limit 20)",
      value: onPostgres,
      baseline: `SQLite: ${onSqlite}`,
    });
  } finally {
    pgStore.close();
    sqliteStore.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Scale-out on PostgreSQL", await benchScaleOut());
  process.exit(0);
}
