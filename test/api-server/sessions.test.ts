import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { namespaceFor } from "../../src/api-server/auth.js";
import { openApiServerStore } from "../../src/state/api-store.js";
import { hermesPaths } from "../../src/state/paths.js";
import type { StoredMessage } from "../../src/state/session-store.js";
import { gate, type Harness, type HarnessOptions, KEY, OTHER_KEY, startHarness } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of JSON bodies
type Json = any;

async function withHarness(options: HarnessOptions, run: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await run(h);
  } finally {
    await h.close();
  }
}

async function call(h: Harness, path: string, init: RequestInit & { key?: string | null } = {}) {
  const response = await h.request(path, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: "PATCH", body: JSON.stringify(body) });

async function createSession(h: Harness, title?: string, key = KEY): Promise<Json> {
  const created = await call(h, "/api/sessions", { ...post(title === undefined ? {} : { title }), key });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const CONVERSATION: StoredMessage[] = [
  { role: "user", content: "list the files" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } }],
    reasoning: "I should look.",
  },
  { role: "tool", content: "a.txt\nb.txt", tool_call_id: "call_1", name: "terminal" },
  { role: "assistant", content: "Two files: a.txt and b.txt." },
];

function assertNotFound(result: { status: number; body: Json }, what: string): void {
  assert.equal(result.status, 404, `${what}: ${JSON.stringify(result.body)}`);
  assert.equal(result.body.error.type, "invalid_request_error", what);
  assert.equal(result.body.error.code, "session_not_found", what);
}

describe("sessions API", () => {
  test("creates, reads, renames, lists and deletes a session", async () => {
    await withHarness({}, async (h) => {
      const created = await createSession(h, "  First try ");
      assert.equal(created.object, "session");
      assert.equal(created.title, "First try");
      assert.equal(created.source, "api_server");
      assert.equal(created.parent_session_id, null);
      assert.equal(created.message_count, 0);
      assert.equal(created.ended_at, null);
      assert.equal(typeof created.started_at, "number");
      assert.ok(created.started_at < 1e11, "times are epoch seconds");
      assert.deepEqual(created.usage, {
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      });
      assert.equal("system_prompt" in created, false);

      const read = await call(h, `/api/sessions/${created.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, created);

      const renamed = await call(h, `/api/sessions/${created.id}`, patch({ title: "Second try" }));
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.title, "Second try");
      assert.equal((await h.runtime.store.getSession(created.id))?.title, "Second try");
      const cleared = await call(h, `/api/sessions/${created.id}`, patch({ title: null }));
      assert.equal(cleared.body.title, null);

      const untitled = await createSession(h);
      assert.equal(untitled.title, null);
      const list = await call(h, "/api/sessions");
      assert.equal(list.status, 200);
      assert.equal(list.body.object, "list");
      assert.equal(list.body.has_more, false);
      assert.deepEqual(list.body.data.map((s: Json) => s.id).sort(), [created.id, untitled.id].sort());

      const deleted = await call(h, `/api/sessions/${created.id}`, { method: "DELETE" });
      assert.deepEqual(deleted.body, { id: created.id, object: "session.deleted", deleted: true });
      assert.equal(await h.runtime.store.getSession(created.id), null);
      assertNotFound(await call(h, `/api/sessions/${created.id}`), "read after delete");
      assertNotFound(await call(h, `/api/sessions/${created.id}`, { method: "DELETE" }), "second delete");
      const after = await call(h, "/api/sessions");
      assert.deepEqual(
        after.body.data.map((s: Json) => s.id),
        [untitled.id],
      );
    });
  });

  test("pages the list most recently active first, with has_more and a source filter", async () => {
    await withHarness({}, async (h) => {
      const ids: string[] = [];
      for (const title of ["one", "two", "three"]) {
        const session = await createSession(h, title);
        await h.runtime.store.appendMessages(session.id, [{ role: "user", content: `hello ${title}` }]);
        ids.push(session.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const cli = await h.runtime.store.createSession({ source: "cli", title: "from the terminal" });

      const first = await call(h, "/api/sessions?limit=2");
      assert.deepEqual(
        first.body.data.map((s: Json) => s.id),
        [cli.id, ids[2]],
      );
      assert.equal(first.body.has_more, true);
      assert.equal(first.body.data[1].preview, "hello three");
      const second = await call(h, "/api/sessions?limit=2&offset=2");
      assert.deepEqual(
        second.body.data.map((s: Json) => s.id),
        [ids[1], ids[0]],
      );
      assert.equal(second.body.has_more, false);

      const api = await call(h, "/api/sessions?source=api_server&limit=2&offset=1");
      assert.deepEqual(
        api.body.data.map((s: Json) => s.id),
        [ids[1], ids[0]],
      );
      const fromCli = await call(h, "/api/sessions?source=cli");
      assert.deepEqual(
        fromCli.body.data.map((s: Json) => s.id),
        [cli.id],
      );
    });
  });

  test("lists a chat turn's messages in order without the system prompt", async () => {
    await withHarness({ provider: { script: [{ text: "Hello there!" }] } }, async (h) => {
      const chat = await h.request("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model: "hermes-agent", messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(chat.status, 200, await chat.clone().text());
      const id = chat.headers.get("x-hermes-session-id");
      assert.ok(id);
      const systemPrompt = (await h.runtime.store.getSession(id))?.systemPrompt;
      assert.ok(systemPrompt, "the turn stored a system prompt");

      const messages = await call(h, `/api/sessions/${id}/messages`);
      assert.equal(messages.status, 200);
      assert.deepEqual(messages.body, {
        object: "list",
        data: [
          { index: 0, role: "user", content: "hi" },
          { index: 1, role: "assistant", content: "Hello there!" },
        ],
        has_more: false,
      });
      const page = await call(h, `/api/sessions/${id}/messages?limit=1`);
      assert.deepEqual(
        page.body.data.map((m: Json) => m.index),
        [0],
      );
      assert.equal(page.body.has_more, true);

      const session = await h.request(`/api/sessions/${id}`);
      const text = await session.text();
      assert.equal(text.includes(systemPrompt.slice(0, 200)), false, "the system prompt never leaves");
      const body = JSON.parse(text) as Json;
      assert.equal(body.message_count, 2);
      assert.ok(body.usage.total_tokens > 0);
    });
  });

  test("returns tool calls, tool results and reasoning of stored messages", async () => {
    await withHarness({}, async (h) => {
      const session = await createSession(h);
      await h.runtime.store.appendMessages(session.id, [{ role: "system", content: "hidden" }, ...CONVERSATION]);
      const messages = await call(h, `/api/sessions/${session.id}/messages?offset=1&limit=2`);
      assert.deepEqual(messages.body.data, [
        {
          index: 1,
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
          ],
          reasoning: "I should look.",
        },
        { index: 2, role: "tool", content: "a.txt\nb.txt", tool_call_id: "call_1", name: "terminal" },
      ]);
      assert.equal(messages.body.has_more, true);
    });
  });

  test("forks a session: copies its messages and system prompt and links the parent", async () => {
    await withHarness({}, async (h) => {
      const original = await createSession(h, "original");
      await h.runtime.store.updateSession(original.id, { systemPrompt: "You are Hermes. <exact bytes>" });
      await h.runtime.store.appendMessages(original.id, CONVERSATION);

      const fork = await call(h, `/api/sessions/${original.id}/fork`, { method: "POST" });
      assert.equal(fork.status, 201, JSON.stringify(fork.body));
      assert.notEqual(fork.body.id, original.id);
      assert.equal(fork.body.parent_session_id, original.id);
      assert.equal(fork.body.source, "api_server");
      assert.equal(fork.body.message_count, CONVERSATION.length);
      assert.equal(fork.body.title, null);
      assert.deepEqual(await h.runtime.store.getMessages(fork.body.id), CONVERSATION);
      assert.equal((await h.runtime.store.getSession(fork.body.id))?.systemPrompt, "You are Hermes. <exact bytes>");
      assert.deepEqual(await h.runtime.store.getMessages(original.id), CONVERSATION, "the original is untouched");

      const listed = await call(h, "/api/sessions");
      assert.ok(listed.body.data.some((s: Json) => s.id === fork.body.id));
    });
  });

  test("forking with keep copies only the first messages and never splits a tool call from its result", async () => {
    await withHarness({}, async (h) => {
      const original = await createSession(h);
      await h.runtime.store.appendMessages(original.id, CONVERSATION);

      const short = await call(h, `/api/sessions/${original.id}/fork`, post({ keep: 1, title: "just the ask" }));
      assert.equal(short.status, 201);
      assert.equal(short.body.title, "just the ask");
      assert.equal(short.body.message_count, 1);
      assert.deepEqual(await h.runtime.store.getMessages(short.body.id), CONVERSATION.slice(0, 1));
      const messages = await call(h, `/api/sessions/${short.body.id}/messages`);
      assert.deepEqual(messages.body.data, [{ index: 0, role: "user", content: "list the files" }]);

      const empty = await call(h, `/api/sessions/${original.id}/fork`, post({ keep: 0 }));
      assert.equal(empty.body.message_count, 0);

      const split = await call(h, `/api/sessions/${original.id}/fork`, post({ keep: 2 }));
      assert.equal(split.status, 400);
      assert.equal(split.body.error.param, "keep");
      assert.match(split.body.error.message, /tool results/);
      const tooMany = await call(h, `/api/sessions/${original.id}/fork`, post({ keep: 5 }));
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.body.error.message, /from 0 to 4/);
    });
  });

  test("with several keys one key cannot list, read, change, delete, fork or read messages of another's session", async () => {
    await withHarness({ settings: { keys: [KEY, OTHER_KEY] } }, async (h) => {
      const mine = await createSession(h, "mine");
      await h.runtime.store.appendMessages(mine.id, CONVERSATION);
      const theirs = await createSession(h, "theirs", OTHER_KEY);
      const cli = await h.runtime.store.createSession({ source: "cli" });

      const list = await call(h, "/api/sessions", { key: OTHER_KEY });
      assert.deepEqual(
        list.body.data.map((s: Json) => s.id),
        [theirs.id],
      );
      const filtered = await call(h, "/api/sessions?source=api_server", { key: OTHER_KEY });
      assert.deepEqual(
        filtered.body.data.map((s: Json) => s.id),
        [theirs.id],
      );
      const own = await call(h, "/api/sessions");
      assert.deepEqual(
        own.body.data.map((s: Json) => s.id),
        [mine.id],
      );

      const attempts: Array<[string, string, RequestInit]> = [
        ["read", `/api/sessions/${mine.id}`, {}],
        ["patch", `/api/sessions/${mine.id}`, patch({ title: "stolen" })],
        ["delete", `/api/sessions/${mine.id}`, { method: "DELETE" }],
        ["fork", `/api/sessions/${mine.id}/fork`, { method: "POST" }],
        ["messages", `/api/sessions/${mine.id}/messages`, {}],
        ["CLI session", `/api/sessions/${cli.id}`, {}],
      ];
      const missing = await call(h, "/api/sessions/20990101_000000_abcdef", { key: OTHER_KEY });
      for (const [what, path, init] of attempts) {
        const result = await call(h, path, { ...init, key: OTHER_KEY });
        assertNotFound(result, what);
        assert.equal(
          result.body.error.message,
          missing.body.error.message.replace("20990101_000000_abcdef", path.split("/")[3]!),
          `${what}: the same answer as for a session that does not exist`,
        );
      }
      const still = await call(h, `/api/sessions/${mine.id}`);
      assert.equal(still.body.title, "mine");
      assert.equal(still.body.message_count, CONVERSATION.length);
      assert.equal((await call(h, "/api/sessions", { key: OTHER_KEY })).body.data.length, 1, "no fork was made");
    });
  });

  test("with a single key a session created outside the API is visible, one owned by another key is not", async () => {
    await withHarness({}, async (h) => {
      const cli = await h.runtime.store.createSession({ source: "cli", title: "terminal chat" });
      await h.runtime.store.appendMessages(cli.id, CONVERSATION);
      const foreign = await h.runtime.store.createSession({ source: "api_server" });
      // Made through the API while another key was configured (a second connection to state.db).
      const tables = await openApiServerStore(hermesPaths(h.home).stateDb);
      await tables.setSessionOwner(foreign.id, namespaceFor(OTHER_KEY));
      tables.close();

      const list = await call(h, "/api/sessions");
      assert.deepEqual(
        list.body.data.map((s: Json) => s.id),
        [cli.id],
      );
      assertNotFound(await call(h, `/api/sessions/${foreign.id}`), "another key's session");
      const first = await call(h, "/api/sessions?limit=1");
      assert.deepEqual(
        first.body.data.map((s: Json) => s.id),
        [cli.id],
        "a hidden session takes no place in a page",
      );
      assert.equal(first.body.has_more, false);
      const read = await call(h, `/api/sessions/${cli.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.source, "cli");
      const messages = await call(h, `/api/sessions/${cli.id}/messages`);
      assert.equal(messages.body.data.length, CONVERSATION.length);
      const fork = await call(h, `/api/sessions/${cli.id}/fork`, post({ keep: 1 }));
      assert.equal(fork.status, 201);
      assert.equal(fork.body.parent_session_id, cli.id);
    });
  });

  test("rejects bad input with a 400 that says what is wrong", async () => {
    await withHarness({}, async (h) => {
      const session = await createSession(h);
      const path = `/api/sessions/${session.id}`;
      const cases: Array<[string, string, RequestInit, RegExp]> = [
        ["non-JSON create", "/api/sessions", { method: "POST", body: "{title:" }, /not valid JSON/],
        ["array body", "/api/sessions", { method: "POST", body: "[]" }, /JSON object/],
        ["non-JSON patch", path, { method: "PATCH", body: "nope" }, /not valid JSON/],
        ["empty patch body", path, { method: "PATCH" }, /empty/],
        ["nothing to patch", path, patch({}), /nothing to change/],
        ["title not a string", path, patch({ title: 42 }), /title must be a string/],
        ["empty title", path, patch({ title: "  " }), /must not be empty/],
        ["title too long", path, patch({ title: "x".repeat(201) }), /limit is 200/],
        ["unknown field", path, patch({ title: "ok", system_prompt: "obey me" }), /unknown field "system_prompt"/],
        ["unknown create field", "/api/sessions", post({ model: "gpt" }), /unknown field "model"/],
        ["negative limit", "/api/sessions?limit=-1", {}, /limit must be a whole number/],
        ["fractional offset", `${path}/messages?offset=1.5`, {}, /offset must be a whole number/],
        ["negative keep", `${path}/fork`, post({ keep: -1 }), /keep must be a whole number/],
        ["keep as text", `${path}/fork`, post({ keep: "2" }), /keep must be a whole number/],
        ["fork title not a string", `${path}/fork`, post({ title: ["x"] }), /title must be a string/],
        ["id too long", `/api/sessions/${"x".repeat(300)}`, {}, /is not a session id/],
        ["id with control characters", "/api/sessions/a%0Ab", {}, /is not a session id/],
      ];
      for (const [what, target, init, message] of cases) {
        const result = await call(h, target, init);
        assert.equal(result.status, 400, `${what}: ${JSON.stringify(result.body)}`);
        assert.equal(result.body.error.type, "invalid_request_error", what);
        assert.match(result.body.error.message, message, what);
      }
      const unchanged = await call(h, path);
      assert.equal(unchanged.body.title, null);
      assert.equal((await call(h, "/api/sessions")).body.data.length, 1, "no bad request created a session");
    });
  });

  test("refuses to delete a session whose first, stateless turn is still running", async () => {
    const { release, arrived, step } = gate({ text: "done" });
    await withHarness({ provider: { script: [step] } }, async (h) => {
      const turn = await h.request("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model: "hermes-agent", stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      const id = turn.headers.get("x-hermes-session-id")!;
      await arrived;
      const busy = await call(h, `/api/sessions/${id}`, { method: "DELETE" });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error.code, "session_busy");
      release();
      await turn.text();
      assert.equal((await call(h, `/api/sessions/${id}`, { method: "DELETE" })).status, 200);
    });
  });

  test("refuses to delete a session while it is running a turn", async () => {
    const { release, arrived: reached, step } = gate({ text: "done" });
    await withHarness({ provider: { script: [step] } }, async (h) => {
      const session = await createSession(h);
      const turn = h.request("/v1/chat/completions", {
        method: "POST",
        headers: { "x-hermes-session-id": session.id },
        body: JSON.stringify({ model: "hermes-agent", messages: [{ role: "user", content: "hi" }] }),
      });
      await reached;
      const busy = await call(h, `/api/sessions/${session.id}`, { method: "DELETE" });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error.code, "session_busy");
      release();
      assert.equal((await turn).status, 200);
      const deleted = await call(h, `/api/sessions/${session.id}`, { method: "DELETE" });
      assert.equal(deleted.status, 200);
      assert.equal(await h.runtime.store.getSession(session.id), null);
    });
  });
});
