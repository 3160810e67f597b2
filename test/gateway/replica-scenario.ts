/**
 * The scenario of the replica-process tests: gateway replicas as separate `hermes gateway run`
 * processes on one PostgreSQL database. The `bus` plugin platform spreads 500 messages over 20
 * chats across the replicas, consecutive messages of a chat to different replicas; one replica is
 * SIGKILLed halfway. Every message must be answered exactly once (counted in the delivery ledger),
 * and each chat's answers and transcript must keep the order of its messages.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { startFakeProvider } from "../fake-provider/server.js";
import type { TestPostgres } from "../helpers/postgres.js";
import { tempDir } from "../state/temp-dir.js";
import { Bus, type BusMessage } from "./bus.js";
import { startBusReplica, stopChildren } from "./bus-replicas.js";
import { userTexts } from "./harness.js";

const CHATS = 20;
const PER_CHAT = 25;
/** Messages of one chat handed out before the earliest of them is answered. */
const WINDOW = 2;

const textOf = (chat: number, index: number) => `c${String(chat).padStart(2, "0")}-m${String(index).padStart(2, "0")}`;
const chatOf = (chat: number) => `chat-${chat}`;
/** The message an answer answers (after the note a re-sent answer starts with). */
const markerOf = (text: string) => /(?:^|\n)answer (c\d\d-m\d\d)$/.exec(text)?.[1];

export async function runScenario(db: TestPostgres, replicaCount: number): Promise<void> {
  const url = await db.database();
  const model = await startFakeProvider({
    fallback: (req) => {
      model.requests.length = 0;
      return { text: `answer ${userTexts(req).at(-1)}` };
    },
  });
  const bus = new Bus();
  await bus.start();
  const names = Array.from({ length: replicaCount }, (_, i) => `r${i}`);
  for (const name of names) bus.addReplica(name);
  const homes = names.map((name) => tempDir(`hermes-replica-${name}-`));
  const children = new Map(
    names.map((name, i) => [
      name,
      startBusReplica({
        name,
        home: homes[i]!,
        databaseUrl: url,
        modelUrl: model.url,
        busUrl: bus.url,
        env: {
          HERMES_GATEWAY_SESSION_LEASE_SECONDS: "4",
          HERMES_GATEWAY_ORPHAN_SWEEP_SECONDS: "1",
          HERMES_GATEWAY_ORPHAN_GRACE_SECONDS: "2",
          HERMES_GATEWAY_STALE_SEND_SECONDS: "6",
        },
      }),
    ]),
  );
  const answered = new Set<string>();
  const nextIndex = Array.from({ length: CHATS }, () => 0);
  let killed = "";
  let redelivered = 0;
  try {
    const messageOf = (chat: number, index: number): BusMessage => ({
      platform: "bus",
      chatId: chatOf(chat),
      chatType: "dm",
      userId: `user-${chat}`,
      messageId: textOf(chat, index),
      text: textOf(chat, index),
    });
    // A chat's next message goes out once its previous one is stored and at most WINDOW - 1
    // earlier ones are unanswered; consecutive messages go to different replicas.
    const feed = () => {
      for (let chat = 0; chat < CHATS; chat++) {
        for (;;) {
          const index = nextIndex[chat]!;
          if (index >= PER_CHAT) break;
          if (index > 0 && !bus.acked.has(textOf(chat, index - 1))) break;
          if (index >= WINDOW && !answered.has(textOf(chat, index - WINDOW))) break;
          const live = bus.liveReplicas();
          const message = messageOf(chat, index);
          bus.hand(message, live[(chat + index) % live.length]!);
          // Now and then the platform delivers a message twice, to two replicas.
          if ((chat * PER_CHAT + index) % 40 === 7 && live.length > 1) {
            bus.hand(message, live[(chat + index + 1) % live.length]!);
            redelivered += 1;
          }
          nextIndex[chat] = index + 1;
        }
      }
    };
    let read = 0;
    let stalled: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve, reject) => {
      // No answer for 60 s: fail with what is missing rather than at the test's time limit.
      const watch = () => {
        clearTimeout(stalled);
        stalled = setTimeout(async () => {
          const missing = Array.from({ length: CHATS * PER_CHAT }, (_, i) =>
            textOf(Math.floor(i / PER_CHAT), i % PER_CHAT),
          )
            .filter((id, i) => !answered.has(id) && nextIndex[Math.floor(i / PER_CHAT)]! > i % PER_CHAT)
            .map((id) => `${id} (stored by ${bus.acked.get(id) ?? "nobody"})`);
          const ids = missing.map((m) => m.split(" ")[0]!);
          const lines = homes.flatMap((home, i) => {
            const log = join(home, "logs", "gateway.log");
            const all = existsSync(log) ? readFileSync(log, "utf8").split("\n") : [];
            return [...all.filter((line) => ids.some((id) => line.includes(id))), ...all.slice(-4)].map(
              (line) => `${names[i]}: ${line}`,
            );
          });
          const ledger = new pg.Client({ connectionString: url });
          await ledger.connect();
          const chats = [...new Set(ids.map((id) => `chat-${Number(id.slice(1, 3))}`))];
          const deliveries = await ledger.query(
            "SELECT chat_id, body, state, possible_duplicate, attempts FROM gateway_deliveries WHERE chat_id = ANY($1) ORDER BY created_at",
            [chats],
          );
          const inbound = await ledger.query(
            "SELECT message_id, state, attempts FROM gateway_inbound WHERE chat_id = ANY($1) AND state <> 'done'",
            [chats],
          );
          await ledger.end();
          const rows = [...deliveries.rows.slice(-12), ...inbound.rows].map((row) => JSON.stringify(row));
          reject(
            new Error(
              `no answer for 60 s; ${answered.size} answered, ${killed || "none"} killed; unanswered: ${missing.join(", ")}\n${lines.join("\n")}\n${rows.join("\n")}`,
            ),
          );
        }, 60_000);
      };
      watch();
      bus.onChange(() => {
        watch();
        for (; read < bus.sent.length; read++) {
          const marker = markerOf(bus.sent[read]!.text);
          if (marker) answered.add(marker);
        }
        if (!killed && answered.size >= (CHATS * PER_CHAT) / 2) {
          killed = names[0]!;
          children.get(killed)!.kill("SIGKILL");
          bus.replicaDied(killed);
        }
        feed();
        if (answered.size === CHATS * PER_CHAT) {
          clearTimeout(stalled);
          resolve();
        }
      });
    });
    feed();
    await done;

    // The ledger: one delivery per message, sent; nothing else but the replicas' own notices.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A replica marks a delivery sent after the platform took it, so the last answers can be
      // on the bus a moment before their rows say so; a send the killed replica left in flight is
      // settled by a survivor after HERMES_GATEWAY_STALE_SEND_SECONDS.
      await settledDeliveries(client, 30_000);
      const { rows } = await client.query<{ body: string; state: string; possible_duplicate: number }>(
        "SELECT body, state, possible_duplicate FROM gateway_deliveries WHERE platform = 'bus'",
      );
      const perMarker = new Map<string, number>();
      for (const row of rows) {
        const marker = markerOf((JSON.parse(row.body) as { text: string }).text);
        if (!marker) continue;
        perMarker.set(marker, (perMarker.get(marker) ?? 0) + 1);
        assert.equal(row.state, "sent", `the answer to ${marker} was sent`);
      }
      assert.equal(perMarker.size, CHATS * PER_CHAT, "every message has an answer in the ledger");
      assert.deepEqual(
        [...perMarker].filter(([, count]) => count !== 1),
        [],
        "no message has two answers in the ledger",
      );
      const flagged = rows.filter((row) => row.possible_duplicate).length;
      const sentTwice = bus.sent.filter((s) => markerOf(s.text)).length - CHATS * PER_CHAT;
      assert.ok(
        sentTwice <= flagged,
        `${sentTwice} answers reached the chat twice, only ${flagged} flagged as repeats`,
      );

      const inbound = await client.query<{ state: string; n: string }>(
        "SELECT state, count(*) AS n FROM gateway_inbound GROUP BY state",
      );
      assert.deepEqual(
        inbound.rows.map((r) => [r.state, Number(r.n)]),
        [["done", CHATS * PER_CHAT]],
      );

      // Each chat's answers arrived in the order of its messages, and its transcript (one session,
      // written by several replicas) holds its messages in that order.
      const transcripts = await client.query<{ id: string; content: string }>(
        "SELECT s.id, m.content FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.role = 'user' ORDER BY m.id",
      );
      for (let chat = 0; chat < CHATS; chat++) {
        const expected = Array.from({ length: PER_CHAT }, (_, i) => textOf(chat, i));
        const arrived = bus.sent
          .filter((s) => s.chatId === chatOf(chat))
          .map((s) => markerOf(s.text))
          .filter((marker): marker is string => marker !== undefined);
        assert.deepEqual([...new Set(arrived)], expected, `answers in ${chatOf(chat)} keep the order`);
        const sessions = new Set(
          transcripts.rows.filter((r) => r.content.startsWith(`${textOf(chat, 0).slice(0, 3)}-`)).map((r) => r.id),
        );
        assert.equal(sessions.size, 1, `${chatOf(chat)} has one session`);
        const written = transcripts.rows.filter((r) => sessions.has(r.id)).map((r) => r.content);
        // A turn cut short by the kill may have written its message before it died: it runs again.
        assert.deepEqual(
          written.filter((text, i) => text !== written[i - 1]),
          expected,
          `${chatOf(chat)}'s transcript keeps the order`,
        );
      }
    } finally {
      await client.end();
    }
    assert.ok(redelivered > 0);
  } finally {
    await stopChildren(children.values());
    await bus.close();
    await model.close();
  }
}

/** Resolves once no bus delivery is still being sent, or after `limitMs` (the assertions then say which). */
async function settledDeliveries(client: pg.Client, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM gateway_deliveries WHERE platform = 'bus' AND state = 'sending'",
    );
    if (Number(rows[0]?.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
