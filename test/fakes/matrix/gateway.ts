/**
 * A real gateway whose Matrix adapter talks to a fake homeserver on loopback, plus helpers to
 * play its users: a direct message, a room message that mentions the bot, a thread reply.
 */
import { MatrixAdapter, type MatrixAdapterOptions } from "../../../src/gateway/adapters/matrix/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { type FakeMatrix, startFakeMatrix } from "./server.js";
import { type FakeEvent, FakeMatrixState, type FakeRoom, type FakeUser } from "./state.js";

export interface MatrixWorld {
  alice: FakeUser;
  stranger: FakeUser;
  /** Alice's direct chat with the bot (two members). */
  dm: FakeRoom;
  /** A room with Alice, the stranger and the bot. */
  town: FakeRoom;
  /** A second room, for free-response and allowlist tests. */
  lounge: FakeRoom;
}

export interface MatrixGateway {
  gw: GatewayHarness;
  mx: FakeMatrix;
  world: MatrixWorld;
  adapters: MatrixAdapter[];
  /** What the adapters logged. */
  adapterLogs: string[];
  close(): Promise<void>;
}

export function buildWorld(mx: FakeMatrix): MatrixWorld {
  const alice = mx.state.addUser("alice", "Alice");
  const stranger = mx.state.addUser("mallory", "Mallory");
  return {
    alice,
    stranger,
    dm: mx.state.addRoom("", [alice]),
    town: mx.state.addRoom("Town Square", [alice, stranger]),
    lounge: mx.state.addRoom("Lounge", [alice, stranger]),
  };
}

export async function startMatrixGateway(
  options: Omit<GatewayHarnessOptions, "adapter"> & {
    adapter?: Partial<MatrixAdapterOptions>;
    /** Room rules, given the world's rooms (defaults: mention required, no lists, threads). */
    rules?: (world: MatrixWorld) => Partial<MatrixAdapterOptions["rules"]>;
    /** Wait for the first long poll before returning (default true). */
    waitForConnection?: boolean;
  } = {},
): Promise<MatrixGateway> {
  const { adapter: adapterOptions, rules, waitForConnection, ...harness } = options;
  const mx = await startFakeMatrix();
  const world = buildWorld(mx);
  const adapters: MatrixAdapter[] = [];
  const adapterLogs: string[] = [];
  const home = options.home ?? tempDir("hermes-matrix-");
  let gw: GatewayHarness;
  try {
    gw = await startGateway({
      ...harness,
      home,
      env: options.env ?? { TEST_ALLOWED_USERS: "user-1", MATRIX_ALLOWED_USERS: world.alice.userId },
      extraAdapters: () => {
        const adapter = new MatrixAdapter({
          homeserver: mx.url,
          token: mx.state.token,
          home,
          log: (line) => adapterLogs.push(line),
          ...adapterOptions,
          rules: {
            requireMention: true,
            freeResponseRooms: new Set(),
            allowedRooms: new Set(),
            replyInThreads: true,
            ...rules?.(world),
          },
        });
        adapters.push(adapter);
        return [adapter];
      },
    });
  } catch (error) {
    await mx.close();
    throw error;
  }
  if (waitForConnection !== false) await waitForPoll(mx);
  return {
    gw,
    mx,
    world,
    adapters,
    adapterLogs,
    async close() {
      await gw.close();
      await mx.close();
    },
  };
}

/** Resolves once a long poll (a sync with `since`) has reached the fake. */
export function waitForPoll(mx: FakeMatrix, after = 0): Promise<void> {
  return mx.waitFor(
    () => mx.calls.some((c) => c.path === "/sync" && c.query.has("since") && c.at >= after) || mx.pendingPolls > 0,
    "the sync long poll",
  );
}

/** Alice (or `user`) writes to the bot directly. */
export function dm(mx: FakeMatrix, world: MatrixWorld, text: string, user = world.alice): FakeEvent {
  return mx.userSays(user, world.dm, text);
}

/** A room message that mentions the bot as clients write it: its display name, and `m.mentions`. */
export function mention(mx: FakeMatrix, room: FakeRoom, user: FakeUser, text: string, threadRoot?: string): FakeEvent {
  return mx.userSays(user, room, `${mx.bot.displayName}: ${text}`, {
    "m.mentions": { user_ids: [mx.bot.userId] },
    ...(threadRoot ? { "m.relates_to": { rel_type: "m.thread", event_id: threadRoot } } : {}),
  });
}

/** A message in a thread, without a mention. */
export function inThread(mx: FakeMatrix, room: FakeRoom, user: FakeUser, text: string, root: string): FakeEvent {
  return mx.userSays(user, room, text, { "m.relates_to": { rel_type: "m.thread", event_id: root } });
}

/** The bot's messages in a room as they read now, streaming previews left out. */
export function finished(mx: FakeMatrix, room: FakeRoom): FakeEvent[] {
  return mx.state.visible(room.id).filter((e) => !FakeMatrixState.bodyOf(e).endsWith(STREAM_CURSOR));
}

export const bodyOf = FakeMatrixState.bodyOf;

/** The thread root a message of the bot names, if any. */
export function threadOf(event: FakeEvent): string | undefined {
  const relation = event.content["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined;
  return relation?.rel_type === "m.thread" ? relation.event_id : undefined;
}

/** Polls a condition the fake cannot see (gateway logs, adapter state) until it holds. */
export async function until(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
