import assert from "node:assert/strict";
import { test } from "node:test";
import { SlackAdapter } from "../../../src/gateway/adapters/slack/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import { PlatformSendError } from "../../../src/gateway/types.js";
import { DM, dm, startSlackGateway, until } from "../../fakes/slack/gateway.js";
import { startFakeSlack } from "../../fakes/slack/server.js";
import { gated, modelRequests, untilModelRequests, userTexts } from "../harness.js";

const answers = (texts: string[]) => texts.filter((t) => t.startsWith("heard") && !t.endsWith(STREAM_CURSOR));

test("a refresh_requested disconnect, a dropped socket mid-turn and a redelivered envelope lose and double nothing", async () => {
  const slow = gated({ text: "heard three" });
  const { gw, slack, close } = await startSlackGateway({
    config: "display:\n  busy_input_mode: queue\n",
    provider: {
      script: [{ text: "heard one" }, { text: "heard two" }, slow.step],
      fallback: (req) => ({ text: `heard ${userTexts(req).at(-1)}` }),
    },
  });
  const texts = () => answers(slack.state.visible(DM).map((m) => m.text));
  try {
    dm(slack, "one");
    await slack.waitFor(() => texts().length === 1, "the first answer");

    let before = slack.connections;
    slack.requestReconnect("refresh_requested");
    await slack.waitFor(() => slack.connections > before && slack.connected, "the reconnect after refresh_requested");
    const twoEnvelope = slack.sendEvent({
      type: "message",
      channel: DM,
      channel_type: "im",
      user: "U0ALICE01",
      text: "two",
      ts: "1700000002.000200",
    });
    await slack.waitFor(() => texts().length === 2, "the answer after the refresh");

    const threeTs = dm(slack, "three");
    await untilModelRequests(gw.fake, 3);
    const three = slack.sentFrames.find((f) => (f.payload as { event?: { ts?: string } })?.event?.ts === threeTs);
    assert.ok(slack.acked(three?.envelope_id as string), "the envelope was acknowledged while its turn still runs");
    before = slack.connections;
    slack.dropSocket();
    // Sent while the socket is down: the fake holds it until the client is back.
    dm(slack, "four");
    slow.open();
    await slack.waitFor(() => slack.connections > before && slack.connected, "the reconnect after the drop");
    await slack.waitFor(() => texts().length === 4, "the answers to three and four");

    // Slack redelivers an envelope whose ack it thinks came late; the same message must not run again.
    slack.redeliver(twoEnvelope);
    await slack.waitFor(() => slack.acks.filter((id) => id === twoEnvelope).length === 2, "the redelivery's ack");
    const redelivered = slack.sentFrames.filter((f) => f.envelope_id === twoEnvelope).at(-1);
    assert.equal(redelivered?.retry_attempt, 1);
    assert.equal(redelivered?.retry_reason, "timeout");
    dm(slack, "five");
    await slack.waitFor(() => texts().length === 5, "the answer to five");

    assert.deepEqual(texts(), ["heard one", "heard two", "heard three", "heard four", "heard five"]);
    const last = modelRequests(gw.fake).at(-1)!;
    assert.deepEqual(userTexts(last), ["one", "two", "three", "four", "five"], "each message reached the model once");
    assert.equal(modelRequests(gw.fake).length, 5);
  } finally {
    slow.open();
    await close();
  }
});

test("a disconnect frame with reason warning makes the client reconnect before Slack closes the link", async () => {
  const { slack, close } = await startSlackGateway({ provider: { fallback: { text: "heard you" } } });
  try {
    const before = slack.connections;
    slack.requestReconnect("warning");
    await slack.waitFor(() => slack.connections > before && slack.connected, "the reconnect after the warning");
    dm(slack, "after the warning");
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === "heard you"), "the answer");
  } finally {
    await close();
  }
});

test("an event whose socket dropped before its ack comes again on the new connection and runs once", async () => {
  const { gw, slack, close } = await startSlackGateway({
    provider: { fallback: (req) => ({ text: `heard ${userTexts(req).at(-1)}` }) },
  });
  try {
    // The socket drops right after the event left: its ack cannot arrive on that connection.
    const before = slack.connections;
    dm(slack, "are you there?");
    slack.dropSocket();
    await slack.waitFor(() => slack.connections > before && slack.connected, "the reconnect");
    await slack.waitFor(() => answers(slack.state.visible(DM).map((m) => m.text)).length === 1, "the answer");
    dm(slack, "still there?");
    await slack.waitFor(() => answers(slack.state.visible(DM).map((m) => m.text)).length === 2, "the second answer");
    assert.equal(modelRequests(gw.fake).length, 2);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[1]!), ["are you there?", "still there?"]);
  } finally {
    await close();
  }
});

test("a 429 with Retry-After is handed to the core, which waits that long before sending again", async () => {
  const { slack, close } = await startSlackGateway({
    config: "display:\n  platforms:\n    slack:\n      streaming: false\n",
    provider: { script: [{ text: "after the wait" }] },
  });
  try {
    slack.state.fail("chat.postMessage", { retryAfter: 2 });
    dm(slack, "hello");
    const limited = await slack.waitForCall("chat.postMessage", (c) => c.status === 429);
    const sent = await slack.waitForCall("chat.postMessage", (c) => c.status === 200);
    assert.equal(sent.params.text, "after the wait");
    const waited = sent.at - limited.at;
    assert.ok(waited >= 1_900, `the retry came ${waited} ms after the 429`);
    assert.equal(slack.calls.filter((c) => c.method === "chat.postMessage").length, 2, "one retry, by the core");
  } finally {
    await close();
  }
});

test("send errors are classified: rate limit and 5xx retryable, channel_not_found and invalid_auth not", async () => {
  const slack = await startFakeSlack();
  const adapter = new SlackAdapter({
    botToken: slack.state.tokens.bot,
    appToken: slack.state.tokens.app,
    apiUrl: slack.apiUrl,
    home: "/nonexistent",
    rules: { requireMention: true, freeResponseChannels: new Set(), allowedChannels: new Set() },
    log: () => undefined,
  });
  const failure = async (action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      assert.ok(error instanceof PlatformSendError, `a PlatformSendError, not ${String(error)}`);
      return error;
    }
    throw new Error("expected a failure");
  };
  try {
    slack.state.fail("chat.postMessage", { retryAfter: 7 });
    const limited = await failure(() => adapter.send({ chatId: DM, text: "x" }));
    assert.deepEqual(limited.options, { retryable: true, retryAfterMs: 7_000 });

    slack.state.fail("chat.postMessage", { status: 429 });
    const unsaid = await failure(() => adapter.send({ chatId: DM, text: "x" }));
    assert.deepEqual(unsaid.options, { retryable: true }, "a 429 without Retry-After is still retryable");

    slack.state.fail("chat.postMessage", { status: 503 });
    assert.equal((await failure(() => adapter.send({ chatId: DM, text: "x" }))).options.retryable, true);

    slack.state.missingChannels.add("C0MISSING1");
    const missing = await failure(() => adapter.send({ chatId: "C0MISSING1", text: "x" }));
    assert.equal(missing.options.retryable, false);
    assert.match(missing.message, /channel_not_found/);

    slack.state.fail("chat.update", { error: "not_in_channel" });
    const outside = await failure(() => adapter.edit({ chatId: DM }, "1.2", "x"));
    assert.equal(outside.options.retryable, false);
    assert.match(outside.message, /invite the app/);

    slack.state.fail("chat.postMessage", { error: "invalid_auth" });
    assert.equal((await failure(() => adapter.send({ chatId: DM, text: "x" }))).options.retryable, false);

    const port = new URL(slack.url).port;
    await slack.close();
    const offline = await failure(() => adapter.send({ chatId: DM, text: "x" }));
    assert.equal(offline.options.retryable, true, `a network error on port ${port} is retryable`);
  } finally {
    await slack.close().catch(() => undefined);
  }
});

test("when the SDK's reconnect is refused (app token rejected) the core is told, and its own reconnect recovers", async () => {
  const { gw, slack, close, adapters } = await startSlackGateway({ provider: { fallback: { text: "back again" } } });
  try {
    slack.state.fail("apps.connections.open", { error: "invalid_auth" });
    const before = slack.connections;
    slack.dropSocket();
    await slack.waitFor(
      () => slack.calls.some((c) => c.method === "apps.connections.open" && c.response.ok === false),
      "the refused reconnect",
    );
    await slack.waitFor(() => slack.connections > before && slack.connected, "the core's reconnect");
    assert.ok(
      gw.logs.some((line) => /^slack: listener lost \(reconnecting to Slack failed: invalid_auth\)/.test(line)),
      gw.logs.join("\n"),
    );
    await until(() => gw.logs.some((line) => line.startsWith("slack: reconnected")), "the core's reconnect log");
    await adapters.at(-1)!.checkAlive();
    dm(slack, "still there?");
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === "back again"), "the answer");
  } finally {
    await close();
  }
});
