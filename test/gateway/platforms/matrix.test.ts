import assert from "node:assert/strict";
import { test } from "node:test";
import { MatrixAdapter } from "../../../src/gateway/adapters/matrix/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import {
  bodyOf,
  dm,
  finished,
  inThread,
  mention,
  startMatrixGateway,
  threadOf,
  until,
  waitForPoll,
} from "../../fakes/matrix/gateway.js";
import { startFakeMatrix } from "../../fakes/matrix/server.js";
import { routeOf } from "../../fakes/matrix/state.js";
import { modelRequests, userTexts } from "../harness.js";

const SEND = "PUT /rooms/:room/send/m.room.message/:txn";
const STREAMING = "display:\n  platforms:\n    matrix:\n      streaming: true\n      edit_interval: 0.2\n";
const echo = { fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `heard ${userTexts(req).join(" + ")}` }) };

function systemPrompt(request: Parameters<typeof userTexts>[0]): string {
  return String((request.body.messages as Array<{ content: string }>)[0]!.content);
}

test("a DM is answered in the DM, with typing shown, and the bot's own message is not read back", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: echo });
  try {
    dm(mx, world, "hello **there**");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer");
    const [answer] = finished(mx, world.dm);
    assert.equal(bodyOf(answer!), "heard hello **there**");
    assert.equal(answer!.content.format, "org.matrix.custom.html");
    assert.equal(answer!.content.formatted_body, "heard hello <strong>there</strong>");
    assert.equal(threadOf(answer!), undefined, "a DM answer stays in the main timeline");
    const typing = mx.calls.find((c) => routeOf(c.method, c.path) === "PUT /rooms/:room/typing/:user");
    assert.ok(typing?.path.includes(world.dm.id), "typing was shown in the DM");
    assert.deepEqual(typing?.body, { typing: true, timeout: 30_000 });
    // The bot's own message comes back in the next sync; it must not start a turn.
    await waitForPoll(mx, answer!.origin_server_ts);
    dm(mx, world, "and again");
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the second answer");
    assert.equal(modelRequests(gw.fake).length, 2);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[1]!), ["hello **there**", "and again"]);
  } finally {
    await close();
  }
});

test("a room mention is answered in a thread under it, and the thread continues without a mention", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: echo });
  const answers = () => finished(mx, world.town);
  try {
    const root = mention(mx, world.town, world.alice, "what is up?");
    await mx.waitFor(() => answers().length === 1, "the first answer");
    assert.equal(threadOf(answers()[0]!), root.event_id, "the answer went into the thread of the mention");
    assert.equal(bodyOf(answers()[0]!), "heard [@alice:fake.local] what is up?", "the mention was taken out");

    inThread(mx, world.town, world.alice, "and then?", root.event_id);
    await mx.waitFor(() => answers().length === 2, "the answer in the thread");
    assert.equal(threadOf(answers()[1]!), root.event_id);
    assert.equal(bodyOf(answers()[1]!), "heard [@alice:fake.local] what is up? + [@alice:fake.local] and then?");
    assert.match(
      systemPrompt(modelRequests(gw.fake)[0]!),
      /- Where: Matrix, the group "Town Square", in a thread of it\./,
    );
  } finally {
    await close();
  }
});

test("unmentioned room messages, notices, edits and encrypted events are ignored; encryption is logged once", async () => {
  const { gw, mx, world, close, adapterLogs } = await startMatrixGateway({ provider: echo });
  try {
    mx.userSays(world.alice, world.town, "chatter nobody asked the bot about");
    mx.userSays(world.alice, world.town, "Hermes: a notice", { msgtype: "m.notice" });
    mx.userSays(world.alice, world.town, "* Hermes: edited", {
      "m.relates_to": { rel_type: "m.replace", event_id: "$whatever" },
    });
    mx.userSends(world.alice, world.lounge, "m.room.encrypted", { algorithm: "m.megolm.v1.aes-sha2", ciphertext: "x" });
    mx.userSends(world.alice, world.lounge, "m.room.encrypted", { algorithm: "m.megolm.v1.aes-sha2", ciphertext: "y" });
    dm(mx, world, "a real one");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the DM answer");
    assert.equal(modelRequests(gw.fake).length, 1);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[0]!), ["a real one"]);
    assert.equal(finished(mx, world.town).length, 0, "nothing was answered in the room");
    const notes = adapterLogs.filter((l) => l.includes(world.lounge.id) && l.includes("encrypted"));
    assert.equal(notes.length, 1, adapterLogs.join("\n"));
    assert.match(notes[0]!, /end-to-end encrypted; encrypted rooms are not supported/);
  } finally {
    await close();
  }
});

test("a free-response room is answered without a mention", async () => {
  const { mx, world, close } = await startMatrixGateway({
    provider: echo,
    rules: (w) => ({ freeResponseRooms: new Set([w.lounge.id]) }),
  });
  try {
    const said = mx.userSays(world.alice, world.lounge, "anyone around?");
    await mx.waitFor(() => finished(mx, world.lounge).length === 1, "the answer");
    assert.equal(threadOf(finished(mx, world.lounge)[0]!), said.event_id);
  } finally {
    await close();
  }
});

test("allowed_rooms keeps the bot out of other rooms even when mentioned; DMs still work", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({
    provider: echo,
    rules: (w) => ({ allowedRooms: new Set([w.lounge.id]) }),
  });
  try {
    mention(mx, world.town, world.alice, "not here");
    mention(mx, world.lounge, world.alice, "here");
    await mx.waitFor(() => finished(mx, world.lounge).length === 1, "the answer in the allowed room");
    dm(mx, world, "and in private");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the DM answer");
    assert.equal(finished(mx, world.town).length, 0);
    assert.equal(modelRequests(gw.fake).length, 2);
  } finally {
    await close();
  }
});

test("a streamed reply grows by m.replace edits and ends as the final text", async () => {
  const text = "Here is the **plan**:\n\n1. wake up\n2. write `code`\n3. ship it";
  const { mx, world, close } = await startMatrixGateway({
    config: STREAMING,
    provider: { script: [{ text, chunkDelayMs: 80 }] },
  });
  try {
    dm(mx, world, "plan my day");
    await mx.waitFor(() => finished(mx, world.dm).some((e) => bodyOf(e) === text), "the final text");
    const messages = mx.state.visible(world.dm.id);
    assert.equal(messages.length, 1, "one message, edited in place");
    assert.ok(messages[0]!.edits.length >= 2, `edited ${messages[0]!.edits.length} times`);
    assert.ok(
      messages[0]!.edits.slice(0, -1).some((e) => e.endsWith(STREAM_CURSOR)),
      "previews carried the cursor",
    );
    const lastEdit = mx.state.stream.findLast(
      (e) => (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type === "m.replace",
    )!;
    assert.equal((lastEdit.content["m.relates_to"] as { event_id: string }).event_id, messages[0]!.event_id);
    assert.equal(lastEdit.content.body, `* ${text}`, "clients without edits show a starred fallback");
    assert.match(
      String((lastEdit.content["m.new_content"] as { formatted_body: string }).formatted_body),
      /<code>code<\/code>/,
    );
  } finally {
    await close();
  }
});

test("a long reply is split into several messages within the limit", async () => {
  const paragraph = "word ".repeat(300).trim();
  const text = Array.from({ length: 8 }, (_, i) => `Part ${i + 1}: ${paragraph}`).join("\n\n");
  const { mx, world, close, adapters } = await startMatrixGateway({ provider: { script: [{ text }] } });
  try {
    dm(mx, world, "write a lot");
    await mx.waitFor(() => finished(mx, world.dm).some((e) => bodyOf(e).includes("Part 8:")), "the last part");
    const parts = finished(mx, world.dm);
    assert.ok(parts.length >= 3, `split into ${parts.length} messages`);
    assert.equal(adapters[0]!.maxMessageLength, 4_000);
    for (const part of parts) assert.ok(bodyOf(part).length <= 4_000);
    assert.equal(parts.map(bodyOf).join("\n\n").replaceAll(/\s+/g, " "), text.replaceAll(/\s+/g, " "));
  } finally {
    await close();
  }
});

test("a 429 M_LIMIT_EXCEEDED is retried after retry_after_ms, with the same transaction id", async () => {
  const { mx, world, close } = await startMatrixGateway({ provider: { script: [{ text: "after the wait" }] } });
  try {
    mx.state.fail(SEND, { status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 1_500 });
    dm(mx, world, "hello");
    const limited = await mx.waitForCall(SEND, (c) => c.status === 429);
    const sent = await mx.waitForCall(SEND, (c) => c.status === 200);
    assert.equal(sent.body.body, "after the wait");
    const waited = sent.at - limited.at;
    assert.ok(waited >= 1_400, `the retry came ${waited} ms after the 429`);
    assert.equal(sent.path, limited.path, "the retry reuses the transaction id, so it cannot post twice");
    assert.equal(finished(mx, world.dm).length, 1);
  } finally {
    await close();
  }
});

test("a failed sync is reported, the loop reconnects, and messages sent meanwhile are answered", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({
    provider: echo,
    runner: { reconnectBaseMs: 5 },
    adapter: { pollTimeoutMs: 200 },
  });
  try {
    dm(mx, world, "one");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the first answer");
    mx.state.fail("GET /sync", { status: 502, errcode: "M_UNKNOWN" }, 2);
    await until(() => gw.logs.some((l) => l.startsWith("matrix: listener lost (the Matrix sync failed")), "the loss");
    dm(mx, world, "two");
    await until(() => gw.logs.some((l) => l.startsWith("matrix: reconnected")), "the reconnect log");
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the answer after the reconnect");
    assert.equal(bodyOf(finished(mx, world.dm)[1]!), "heard one + two");
  } finally {
    await close();
  }
});

test("a DM from someone not on MATRIX_ALLOWED_USERS gets a pairing code and never reaches the model", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: { fallback: { text: "secret" } } });
  try {
    const theirs = mx.state.addRoom("", [world.stranger]);
    mx.userSays(world.stranger, theirs, "let me in");
    mention(mx, world.town, world.stranger, "me too");
    await mx.waitFor(() => mx.state.visible(theirs.id).length === 1, "the pairing reply");
    assert.match(bodyOf(mx.state.visible(theirs.id)[0]!), /[A-HJ-NP-Z2-9]{8}/);
    assert.doesNotMatch(bodyOf(mx.state.visible(theirs.id)[0]!), /secret/);
    assert.equal(modelRequests(gw.fake).length, 0);
    assert.equal(finished(mx, world.town).length, 0, "a stranger's room mention is not answered");
  } finally {
    await close();
  }
});

test("a stranger's file is never downloaded: the DM gets its pairing code and nothing reaches the model", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: { fallback: { text: "secret" } } });
  try {
    const theirs = mx.state.addRoom("", [world.stranger]);
    const url = mx.storeMedia("payload.sh", "text/plain", Buffer.from("rm -rf /"));
    mx.userSays(world.stranger, theirs, "payload.sh", { msgtype: "m.file", url, info: { size: 8 } });
    await mx.waitFor(() => mx.state.visible(theirs.id).length === 1, "the pairing reply");
    assert.match(bodyOf(mx.state.visible(theirs.id)[0]!), /[A-HJ-NP-Z2-9]{8}/);
    assert.equal(mx.calls.filter((c) => c.path.startsWith("/client/v1/media/download/")).length, 0);
    assert.equal(modelRequests(gw.fake).length, 0);
  } finally {
    await close();
  }
});

test("a token the homeserver rejects is reported with what to do, and the token is never logged", async () => {
  const { gw, mx, close } = await startMatrixGateway({
    provider: echo,
    adapter: { token: "revoked-token" },
    waitForConnection: false,
  });
  try {
    await until(() => gw.logs.some((l) => l.startsWith("matrix: listener lost")), "the start-up failure");
    const line = gw.logs.find((l) => l.startsWith("matrix: listener lost"))!;
    assert.match(line, /rejected MATRIX_ACCESS_TOKEN \(HTTP 401 M_UNKNOWN_TOKEN\)/);
    assert.doesNotMatch(line, /revoked-token/);
    assert.equal(mx.syncs, 0, "no sync was attempted");
  } finally {
    await close();
  }
  const alone = await startFakeMatrix();
  const adapter = new MatrixAdapter({
    homeserver: alone.url,
    token: "revoked-token",
    home: "/nonexistent",
    log: () => undefined,
    rules: { requireMention: true, freeResponseRooms: new Set(), allowedRooms: new Set(), replyInThreads: true },
  });
  try {
    await assert.rejects(
      adapter.connect({ inbound: async () => true, listenerLost: () => undefined }),
      /rejected MATRIX_ACCESS_TOKEN .*save the new token as MATRIX_ACCESS_TOKEN/,
    );
  } finally {
    await adapter.disconnect();
    await alone.close();
  }
});
