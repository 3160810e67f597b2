import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { platformSetup } from "../../../src/cli/platform-setup.js";
import { MatrixAdapter } from "../../../src/gateway/adapters/matrix/adapter.js";
import { markdownToHtml } from "../../../src/gateway/adapters/matrix/format.js";
import { plainText } from "../../../src/gateway/adapters/matrix/inbound.js";
import { createAdapter, homeserverAddress, probe, roomRules } from "../../../src/gateway/adapters/matrix/platform.js";
import { type PlatformContext, platformEnabled } from "../../../src/gateway/platform-catalog.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import { PlatformSendError } from "../../../src/gateway/types.js";
import { loadConfig } from "../../../src/state/config.js";
import { validateConfig } from "../../../src/state/config-validate.js";
import { bodyOf, buildWorld, dm, finished, startMatrixGateway, threadOf } from "../../fakes/matrix/gateway.js";
import { startFakeMatrix } from "../../fakes/matrix/server.js";
import { routeOf } from "../../fakes/matrix/state.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

function contextWith(yaml: string, env: Record<string, string>): PlatformContext {
  const home = tempDir("hermes-mx-config-");
  writeFileSync(join(home, "config.yaml"), yaml);
  return { config: loadConfig({ home }).config, env, home, log: () => undefined };
}

const rules = {
  requireMention: true,
  freeResponseRooms: new Set<string>(),
  allowedRooms: new Set<string>(),
  replyInThreads: true,
};

test("the matrix section's keys are read as strings or lists, MATRIX_* variables override them, bad values name the key", () => {
  const yaml = 'matrix:\n  require_mention: false\n  free_response_rooms: "!a:x, !b:x"\n  allowed_rooms: ["!c:x"]\n';
  const fromConfig = contextWith(yaml, {});
  assert.deepEqual(roomRules(fromConfig), {
    requireMention: false,
    freeResponseRooms: new Set(["!a:x", "!b:x"]),
    allowedRooms: new Set(["!c:x"]),
    replyInThreads: true,
    ignoreUsers: [],
    processNotices: false,
    dmThreads: false,
    dmMentionThreads: false,
  });
  const overridden = contextWith(yaml, {
    MATRIX_REQUIRE_MENTION: "true",
    MATRIX_FREE_RESPONSE_ROOMS: "!x:x",
    MATRIX_ALLOWED_ROOMS: "!y:x,!z:x",
    MATRIX_AUTO_THREAD: "false",
  });
  assert.deepEqual(roomRules(overridden), {
    requireMention: true,
    freeResponseRooms: new Set(["!x:x"]),
    allowedRooms: new Set(["!y:x", "!z:x"]),
    replyInThreads: false,
    ignoreUsers: [],
    processNotices: false,
    dmThreads: false,
    dmMentionThreads: false,
  });
  assert.deepEqual(contextWith("", {}).config.matrix, {
    require_mention: true,
    free_response_rooms: [],
    allowed_rooms: [],
  });
  assert.throws(
    () => validateConfig({ matrix: { require_mention: "sometimes" } }),
    /matrix\.require_mention must be true or false/,
  );
  assert.throws(
    () => validateConfig({ matrix: { allowed_rooms: { a: 1 } } }),
    /matrix\.allowed_rooms must be a list of ids/,
  );
  assert.throws(() => validateConfig({ matrix: { free_response_rooms: true } }), /matrix\.free_response_rooms must be/);
  const { notActedOn } = validateConfig({
    matrix: { require_mention: true, free_response_rooms: "", allowed_rooms: "" },
  });
  assert.ok(!notActedOn.some((key) => key.startsWith("matrix.")), `not acted on: ${notActedOn.join(", ")}`);
  assert.throws(
    () => roomRules(contextWith("", { MATRIX_REQUIRE_MENTION: "maybe" })),
    /MATRIX_REQUIRE_MENTION="maybe" is not true or false/,
  );
});

test("the homeserver address is checked and tidied, and missing credentials say what to set", () => {
  assert.deepEqual(homeserverAddress("https://matrix.example.org/"), { url: "https://matrix.example.org" });
  assert.deepEqual(homeserverAddress("https://example.org/_matrix/client/v3"), { url: "https://example.org" });
  assert.match(
    (homeserverAddress("matrix.example.org") as { problem: string }).problem,
    /not a URL; write it with its scheme/,
  );
  assert.match((homeserverAddress("ftp://x.org") as { problem: string }).problem, /must start with https:\/\//);
  assert.throws(
    () => createAdapter(contextWith("", { MATRIX_HOMESERVER: "https://m.org" })),
    /matrix: no access token; .*MATRIX_ACCESS_TOKEN/,
  );
  assert.throws(
    () => createAdapter(contextWith("", { MATRIX_HOMESERVER: "https://m.org", MATRIX_PASSWORD: "pw" })),
    /MATRIX_PASSWORD is set without MATRIX_USER_ID; set MATRIX_USER_ID/,
  );
  assert.throws(
    () => createAdapter(contextWith("", { MATRIX_ACCESS_TOKEN: "t" })),
    /no homeserver address; set MATRIX_HOMESERVER/,
  );
});

test("MATRIX_HOMESERVER and MATRIX_ACCESS_TOKEN turn the platform on; setup saves them and checks the token", async () => {
  const env = { MATRIX_HOMESERVER: "https://matrix.example.org", MATRIX_ACCESS_TOKEN: "tok" };
  const context = contextWith("", env);
  assert.equal(platformEnabled(context.config, env, "matrix"), true);
  assert.equal(platformEnabled(context.config, { MATRIX_HOMESERVER: "https://m.org" }, "matrix"), false);
  assert.equal(platformEnabled(context.config, { ...env, MATRIX_ENABLED: "false" }, "matrix"), false);
  const started = await enabledPlatforms(context.config, { home: context.home, env, log: () => undefined });
  assert.ok(started.adapters.some((a) => a instanceof MatrixAdapter));

  const mx = await startFakeMatrix();
  try {
    const home = tempDir("hermes-mx-setup-");
    const lines: string[] = [];
    const code = await platformSetup(home, "matrix", {
      set: [
        `MATRIX_HOMESERVER=${mx.url}`,
        `MATRIX_ACCESS_TOKEN=${mx.state.token}`,
        "MATRIX_ALLOWED_USERS=@alice:fake.local",
      ],
      check: true,
      interactive: false,
      env: {},
      out: (line) => lines.push(line),
    });
    assert.equal(code, 0, lines.join("\n"));
    assert.ok(lines.includes(".env: MATRIX_ACCESS_TOKEN saved"), lines.join("\n"));
    assert.ok(lines.includes(`✓ Matrix: @hermes:fake.local on ${mx.url}`), lines.join("\n"));
    assert.match(readFileSync(join(home, ".env"), "utf8"), /^MATRIX_ALLOWED_USERS=.*@alice:fake\.local/m);
    const bad = await probe(contextWith("", { MATRIX_HOMESERVER: mx.url, MATRIX_ACCESS_TOKEN: "nope" }), 5_000);
    assert.equal(bad.ok, false);
    assert.match(bad.detail, /rejected the access token \(HTTP 401 M_UNKNOWN_TOKEN\)/);
    assert.match(bad.hint ?? "", /MATRIX_ACCESS_TOKEN/);
  } finally {
    await mx.close();
  }
});

test("send failures are classified: 429 waits as told, 5xx retries, other 4xx and bad ids do not", async () => {
  const mx = await startFakeMatrix();
  const world = buildWorld(mx);
  const adapter = new MatrixAdapter({
    homeserver: mx.url,
    token: mx.state.token,
    home: "/nonexistent",
    log: () => undefined,
    rules,
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
  const SEND = "PUT /rooms/:room/send/m.room.message/:txn";
  try {
    mx.state.fail(SEND, { status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 7_250 });
    const limited = await failure(() => adapter.send({ chatId: world.dm.id, text: "x" }));
    assert.deepEqual(limited.options, { retryable: true, retryAfterMs: 7_250 });
    mx.state.fail(SEND, { status: 503, errcode: "M_UNKNOWN" });
    assert.equal((await failure(() => adapter.send({ chatId: world.dm.id, text: "x" }))).options.retryable, true);
    const stranger = mx.state.addRoom("elsewhere", []);
    stranger.members.delete(mx.bot.userId);
    const forbidden = await failure(() => adapter.send({ chatId: stranger.id, text: "x" }));
    assert.equal(forbidden.options.retryable, false);
    assert.match(forbidden.message, /HTTP 403: M_FORBIDDEN User not in room \(the bot may not do this here/);
    const notAnId = await failure(() => adapter.edit({ chatId: world.dm.id }, "../../account/whoami", "y"));
    assert.equal(notAnId.options.retryable, false);
    assert.equal(mx.calls.filter((c) => c.path.includes("whoami")).length, 0, "a bad id never reaches a URL");
    const sent = await adapter.send({ chatId: world.dm.id, text: "once", idempotencyKey: "reply-1" });
    const again = await adapter.send({ chatId: world.dm.id, text: "once", idempotencyKey: "reply-1" });
    assert.equal(again.messageId, sent.messageId, "a retried send with its key is posted once");
    assert.equal(mx.state.visible(world.dm.id).length, 1);
    await mx.close();
    const offline = await failure(() => adapter.send({ chatId: world.dm.id, text: "x" }));
    assert.equal(offline.options.retryable, true);
    assert.match(offline.message, /could not be reached for PUT/);
  } finally {
    await mx.close().catch(() => undefined);
  }
});

test("markdown becomes escaped Matrix HTML, and a mention is taken out of the text", () => {
  assert.equal(
    markdownToHtml(
      "**bold** and *it* <script>x</script> `a<b` [site](https://e.org?a=1&b=2) [bad](javascript:alert(1))\nnext",
    ),
    '<strong>bold</strong> and <em>it</em> &lt;script&gt;x&lt;/script&gt; <code>a&lt;b</code> <a href="https://e.org?a=1&amp;b=2">site</a> [bad](javascript:alert(1))<br>next',
  );
  assert.equal(
    markdownToHtml("```ts\nconst a = 1 < 2;\n```"),
    '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>',
  );
  const bot = { userId: "@hermes:x.org", displayName: "Hermes" };
  assert.equal(plainText("Hermes: what now?", bot), "what now?");
  assert.equal(plainText("ask @hermes:x.org please", bot), "ask please");
  assert.equal(plainText("Hermesian ideas", bot), "Hermesian ideas");
  assert.equal(plainText("> <@bob:x.org> earlier\n\nHermes: yes?", bot, true), "yes?");
});

test("a file a user sends is downloaded through authenticated media and reaches the model", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: { fallback: { text: "got it" } } });
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
    assert.match(text!, /see attached/);
    const saved = /saved at (\S+)\]/.exec(text!)?.[1];
    assert.ok(saved?.startsWith(join(gw.home, "cache", "matrix")), text);
    assert.equal(readFileSync(saved!, "utf8"), "buy milk");
  } finally {
    await close();
  }
});

test("a reply naming MEDIA:/path uploads the file and sends it as a file message in the thread", async () => {
  const report = join(tempDir("hermes-mx-out-"), "report.txt");
  writeFileSync(report, "the report\n");
  const { mx, world, close } = await startMatrixGateway({
    provider: { script: [{ text: `Here is the report.\nMEDIA:${report}` }] },
  });
  try {
    const root = mx.userSays(world.alice, world.town, "Hermes: the report please");
    await mx.waitFor(() => finished(mx, world.town).some((e) => e.content.msgtype === "m.file"), "the file message");
    const upload = mx.calls.find((c) => routeOf(c.method, c.path) === "POST /media/v3/upload")!;
    assert.deepEqual(upload.body, { filename: "report.txt", bytes: 11 });
    const file = finished(mx, world.town).find((e) => e.content.msgtype === "m.file")!;
    assert.equal(file.content.filename, "report.txt");
    assert.equal(threadOf(file), root.event_id);
    const mediaId = String(file.content.url).split("/").pop()!;
    assert.equal(mx.state.media.get(mediaId)?.data.toString(), "the report\n");
    assert.ok(finished(mx, world.town).some((e) => bodyOf(e).includes("Here is the report.")));
  } finally {
    await close();
  }
});

test("an invite to a DM is joined and answered without its earlier history; other rooms outside allowed_rooms are not joined", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({
    provider: { fallback: (req) => ({ text: `heard ${userTexts(req).join(" + ")}` }) },
    rules: (w) => ({ allowedRooms: new Set([w.lounge.id]) }),
  });
  try {
    const direct = mx.invite(world.alice, "", true);
    mx.state.append(direct.id, world.alice.userId, "m.room.message", {
      msgtype: "m.text",
      body: "written before the join",
    });
    await mx.waitForCall("POST /rooms/:room/join", (c) => c.path.includes(direct.id));
    await mx.waitFor(() => direct.members.has(mx.bot.userId), "the join");
    mx.userSays(world.alice, direct, "hi there");
    await mx.waitFor(() => finished(mx, direct).length === 1, "the DM answer");
    assert.equal(bodyOf(finished(mx, direct)[0]!), "heard hi there", "history from before the join is not answered");
    const group = mx.invite(world.alice, "Elsewhere", false);
    dm(mx, world, "ping");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer after the second invite");
    assert.ok(!mx.calls.some((c) => c.path.includes(group.id)), "the room outside allowed_rooms was not joined");
    assert.equal(modelRequests(gw.fake).length, 2);
  } finally {
    await close();
  }
});
