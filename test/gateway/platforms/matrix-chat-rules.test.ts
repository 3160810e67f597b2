import assert from "node:assert/strict";
import { test } from "node:test";
import { mentionsIn } from "../../../src/gateway/adapters/matrix/adapter.js";
import { judgeMessage } from "../../../src/gateway/adapters/matrix/inbound.js";
import { createAdapter, roomRules } from "../../../src/gateway/adapters/matrix/platform.js";
import { loadConfig } from "../../../src/state/config.js";
import { bodyOf, dm, finished, startMatrixGateway } from "../../fakes/matrix/gateway.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const echo = { fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `heard ${userTexts(req).at(-1)}` }) };

test("!command runs a built-in command for clients that keep / for themselves; other ! text is a message", async () => {
  const { mx, world, gw, close } = await startMatrixGateway({ provider: echo });
  try {
    dm(mx, world, "!stop");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the command's answer");
    assert.equal(bodyOf(finished(mx, world.dm)[0]!), "Nothing is running.");
    dm(mx, world, "!important: the build is red");
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the agent's answer");
    assert.equal(bodyOf(finished(mx, world.dm)[1]!), "heard !important: the build is red");
    assert.equal(modelRequests(gw.fake).length, 1, "only the ordinary message reached the model");
  } finally {
    await close();
  }
});

test("appservice users and MATRIX_IGNORE_USER_PATTERNS senders are not listened to, not even for a pairing code; notices only when asked", async () => {
  const { mx, world, close } = await startMatrixGateway({
    provider: echo,
    rules: () => ({ ignoreUsers: [/^@telegram_/], processNotices: true }),
  });
  try {
    const appservice = mx.state.addUser("_bridgebot", "Bridge");
    const ghost = mx.state.addUser("telegram_4242", "Bob (Telegram)");
    const bridgeDm = mx.state.addRoom("", [appservice]);
    const ghostDm = mx.state.addRoom("", [ghost]);
    mx.userSays(appservice, bridgeDm, "hello from the bridge");
    mx.userSays(ghost, ghostDm, "hello from telegram");
    mx.userSays(world.alice, world.dm, "a notice from alice's script", { msgtype: "m.notice" });
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer to the notice");
    assert.equal(bodyOf(finished(mx, world.dm)[0]!), "heard a notice from alice's script");
    assert.deepEqual(finished(mx, bridgeDm), [], "no reply, no pairing code");
    assert.deepEqual(finished(mx, ghostDm), []);
  } finally {
    await close();
  }
});

test("replies mention the users they name and never the whole room unless MATRIX_ALLOW_ROOM_MENTIONS", async () => {
  const reply = { fallback: { text: "@room: @alice:fake.local asked, and @bob:example.org:8448 agreed." } };
  for (const allowRoomMentions of [false, true]) {
    const { mx, world, close } = await startMatrixGateway({ provider: reply, adapter: { allowRoomMentions } });
    try {
      dm(mx, world, "who agreed?");
      await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer");
      const sent = finished(mx, world.dm)[0]!;
      // A streamed reply grows by edits: the previews ping no one (they may hold half an id); the
      // final edit notifies whom the whole text names.
      const edits = mx.state.stream.filter(
        (e) => (e.content["m.relates_to"] as { event_id?: string } | undefined)?.event_id === sent.event_id,
      );
      assert.ok(edits.length > 0, "the reply was streamed");
      assert.deepEqual(sent.content["m.mentions"], {});
      for (const edit of edits.slice(0, -1)) assert.deepEqual(edit.content["m.mentions"], {});
      const expected = {
        user_ids: ["@alice:fake.local", "@bob:example.org:8448"],
        ...(allowRoomMentions ? { room: true } : {}),
      };
      const last = edits.at(-1)!.content;
      assert.deepEqual(last["m.mentions"], expected);
      assert.deepEqual((last["m.new_content"] as Record<string, unknown>)["m.mentions"], expected);
    } finally {
      await close();
    }
  }
  assert.deepEqual(mentionsIn("no one here, mail me@example.org", false), {});
  assert.deepEqual(mentionsIn("ask @carol:matrix.org.", false), { user_ids: ["@carol:matrix.org"] });
});

test("MATRIX_IGNORE_USER_PATTERNS and MATRIX_PROCESS_NOTICES are read from the environment; a bad pattern names the variable", () => {
  const context = (env: Record<string, string>) => ({
    config: { matrix: { require_mention: true, free_response_rooms: [], allowed_rooms: [] } },
    env,
    home: "/nonexistent",
    log: () => undefined,
  });
  const rules = roomRules(
    context({ MATRIX_IGNORE_USER_PATTERNS: "^@telegram_, ^@whatsapp_", MATRIX_PROCESS_NOTICES: "true" }) as never,
  );
  assert.deepEqual(
    rules.ignoreUsers?.map((pattern) => pattern.source),
    ["^@telegram_", "^@whatsapp_"],
  );
  assert.equal(rules.processNotices, true);
  assert.throws(
    () => roomRules(context({ MATRIX_IGNORE_USER_PATTERNS: "^@(telegram" }) as never),
    /MATRIX_IGNORE_USER_PATTERNS: "\^@\(telegram" is not a regular expression/,
  );
});

test("a message gets 👀 while the agent works on it and ✅ once answered; MATRIX_REACTIONS=false sends none", async () => {
  for (const reactions of [true, false]) {
    const { mx, world, close } = await startMatrixGateway({ provider: echo, adapter: { reactions } });
    try {
      const asked = dm(mx, world, "how are you?");
      await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer");
      if (reactions) {
        await mx.waitFor(() => mx.state.reactionsOn(asked.event_id).join() === "✅", "✅ and the 👀 taken back");
        const sent = mx.state.stream
          .filter((e) => e.type === "m.reaction")
          .map((e) => (e.content["m.relates_to"] as { key: string }).key);
        assert.deepEqual(sent, ["👀", "✅"]);
      } else {
        assert.deepEqual(
          mx.state.stream.filter((e) => e.type === "m.reaction"),
          [],
        );
      }
    } finally {
      await close();
    }
  }
});

test("DM messages start threads only with MATRIX_DM_AUTO_THREAD, or when they mention the bot with MATRIX_DM_MENTION_THREADS", () => {
  const bot = { userId: "@hermes:x.org", displayName: "Hermes" };
  const base = {
    requireMention: true,
    freeResponseRooms: new Set<string>(),
    allowedRooms: new Set<string>(),
    replyInThreads: true,
  };
  const event = (body: string) => ({
    event_id: "$e1",
    type: "m.room.message",
    sender: "@alice:x.org",
    content: { msgtype: "m.text", body },
  });
  const threadOf = (
    rules: Partial<typeof base> & { dmThreads?: boolean; dmMentionThreads?: boolean },
    body: string,
  ) => {
    const verdict = judgeMessage("!dm:x.org", event(body), {
      bot,
      rules: { ...base, ...rules },
      isDm: true,
      activeThreads: new Set(),
    });
    assert.ok(verdict.accepted);
    return verdict.message.threadId;
  };
  assert.equal(threadOf({}, "hello"), undefined);
  assert.equal(threadOf({ dmThreads: true }, "hello"), "$e1");
  assert.equal(threadOf({ dmMentionThreads: true }, "hello"), undefined);
  assert.equal(threadOf({ dmMentionThreads: true }, "Hermes: look at this"), "$e1");
});

test("MATRIX_SESSION_SCOPE room keeps room mentions out of threads, thread threads them, anything else names the variable", () => {
  const context = (env: Record<string, string>) =>
    ({
      config: { matrix: { require_mention: true, free_response_rooms: [], allowed_rooms: [] } },
      env,
      home: "/nonexistent",
      log: () => undefined,
    }) as never;
  assert.equal(roomRules(context({ MATRIX_SESSION_SCOPE: "room", MATRIX_AUTO_THREAD: "true" })).replyInThreads, false);
  assert.equal(
    roomRules(context({ MATRIX_SESSION_SCOPE: "thread", MATRIX_AUTO_THREAD: "false" })).replyInThreads,
    true,
  );
  assert.equal(roomRules(context({ MATRIX_SESSION_SCOPE: "auto", MATRIX_AUTO_THREAD: "false" })).replyInThreads, false);
  assert.throws(
    () => roomRules(context({ MATRIX_SESSION_SCOPE: "lobby" })),
    /MATRIX_SESSION_SCOPE must be auto, room or thread/,
  );
  const dmRules = roomRules(context({ MATRIX_DM_AUTO_THREAD: "true", MATRIX_DM_MENTION_THREADS: "true" }));
  assert.deepEqual([dmRules.dmThreads, dmRules.dmMentionThreads], [true, true]);
});

test("MATRIX_MAX_MEDIA_BYTES keeps larger files from being downloaded; the agent hears why; a bad value names the variable", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({
    provider: { fallback: { text: "noted" } },
    adapter: { maxMediaBytes: 4 },
  });
  try {
    const url = mx.storeMedia("notes.txt", "text/plain", Buffer.from("buy milk"));
    mx.userSays(world.alice, world.dm, "see attached", {
      msgtype: "m.file",
      filename: "notes.txt",
      url,
      info: { size: 8 },
    });
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer");
    const [text] = userTexts(modelRequests(gw.fake)[0]!);
    assert.match(text!, /A file could not be downloaded: notes\.txt: it is over MATRIX_MAX_MEDIA_BYTES \(4 bytes\)/);
    assert.ok(!mx.calls.some((c) => c.path.includes("/media/download/")), "nothing was fetched");
  } finally {
    await close();
  }
  const home = tempDir("hermes-mx-media-");
  const { config } = loadConfig({ home });
  const env = { MATRIX_HOMESERVER: "https://m.example.org", MATRIX_ACCESS_TOKEN: "t", MATRIX_MAX_MEDIA_BYTES: "lots" };
  assert.throws(
    () => createAdapter({ config, env, home, log: () => undefined }),
    /MATRIX_MAX_MEDIA_BYTES must be a whole number of bytes above 0, not "lots"/,
  );
});
