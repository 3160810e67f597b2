import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { namespaceFor } from "../../src/api-server/auth.js";
import { RunEventLog } from "../../src/api-server/runs/events.js";
import { openApiServerStore } from "../../src/state/api-store.js";
import { hermesPaths } from "../../src/state/paths.js";
import type { RecordedRequest } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { gate, type Harness, type HarnessOptions, KEY, modelRequests, OTHER_KEY, startHarness } from "./harness.js";

interface RunObject {
  id: string;
  object: string;
  status: string;
  session_id: string;
  created_at: number;
  output?: string;
  error?: string;
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
}

interface SseEvent {
  id: number;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the fields each event carries
  data: any;
}

/** Reads an SSE body event by event; keep-alive comments are counted, not returned. */
class EventReader {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  comments = 0;

  constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next event, or undefined when the stream has ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const event = this.parse(block);
        if (event) return event;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Events up to and including the first one named `name`. */
  async until(name: string): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (;;) {
      const event = await this.next();
      assert.ok(event, `the stream ended before ${name}; got ${events.map((e) => e.event).join(", ")}`);
      events.push(event);
      if (event.event === name) return events;
    }
  }

  /** Every remaining event, to the end of the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel();
  }

  private parse(block: string): SseEvent | undefined {
    const fields: Record<string, string> = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(": ");
      fields[line.slice(0, colon)] = line.slice(colon + 2);
    }
    if (fields.event === undefined) return undefined;
    return { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data ?? "null") };
  }
}

async function withHarness(options: HarnessOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await body(h);
  } finally {
    await h.close();
  }
}

async function startRun(
  h: Harness,
  body: Record<string, unknown>,
  init: { key?: string; headers?: Record<string, string> } = {},
): Promise<{ response: Response; run: RunObject }> {
  const response = await h.request("/v1/runs", { method: "POST", body: JSON.stringify(body), ...init });
  const run = (await response.json()) as RunObject;
  assert.ok(
    response.status === 202 || response.status === 200,
    `POST /v1/runs: ${response.status} ${JSON.stringify(run)}`,
  );
  return { response, run };
}

async function events(h: Harness, id: string, headers: Record<string, string> = {}, query = ""): Promise<EventReader> {
  const response = await h.request(`/v1/runs/${id}/events${query}`, { headers });
  if (response.status !== 200) assert.fail(`GET events: ${response.status} ${await response.text()}`);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  return new EventReader(response);
}

async function getRun(h: Harness, id: string, key = KEY): Promise<RunObject> {
  const response = await h.request(`/v1/runs/${id}`, { key });
  assert.equal(response.status, 200);
  return (await response.json()) as RunObject;
}

async function post(h: Harness, path: string, body: unknown = {}, key = KEY): Promise<Response> {
  return h.request(path, { method: "POST", body: JSON.stringify(body), key });
}

async function errorOf(response: Response): Promise<{ code: string | null; message: string; type: string }> {
  return ((await response.json()) as { error: { code: string | null; message: string; type: string } }).error;
}

/** The model calls the agent made (the runtime's start-up model probe aside). */

/** Tool messages the model was sent in one request. */
function toolMessages(req: RecordedRequest): string[] {
  return (req.body.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

const todoCall = (id = "call_todo") => ({
  id,
  name: "todo",
  arguments: { todos: [{ id: "1", content: "look around", status: "pending" }] },
});

describe("runs: lifecycle and events", () => {
  test("a run answers 202 at once, streams its message deltas and ends with run.completed", async () => {
    const answer = "The answer is forty-two, computed with care and patience.";
    await withHarness({ provider: { script: [{ text: answer }] } }, async (h) => {
      const { response, run } = await startRun(h, { input: "what is the answer?" });
      assert.equal(response.status, 202);
      assert.match(run.id, /^run_[0-9a-f]+$/);
      assert.equal(run.object, "run");
      assert.equal(run.status, "running");
      assert.ok(run.session_id);
      assert.ok(Math.abs(run.created_at - Date.now() / 1000) < 60);

      const all = await (await events(h, run.id)).rest();
      const deltas = all.filter((e) => e.event === "message.delta");
      assert.ok(deltas.length >= 2, "the reply arrives in several deltas");
      assert.equal(deltas.map((e) => e.data.text).join(""), answer);
      assert.deepEqual(
        all.map((e) => e.id),
        all.map((_, i) => i + 1),
        "ids count up from 1",
      );
      const last = all.at(-1)!;
      assert.equal(last.event, "run.completed");
      assert.equal(last.data.output, answer);
      assert.equal(last.data.session_id, run.session_id);
      assert.ok(last.data.usage.total_tokens > 0);

      const stored = await getRun(h, run.id);
      assert.equal(stored.status, "completed");
      assert.equal(stored.output, answer);
      assert.equal(stored.usage?.total_tokens, last.data.usage.total_tokens);
      const messages = await h.runtime.store.getMessages(run.session_id);
      assert.deepEqual(
        messages.map((m) => [m.role, m.content]),
        [
          ["user", "what is the answer?"],
          ["assistant", answer],
        ],
      );
    });
  });

  test("a tool-using run reports tool.started and tool.completed, never the tool's output", async () => {
    const script = [{ toolCalls: [todoCall("call_plan")] }, { text: "planned" }];
    await withHarness({ provider: { script } }, async (h) => {
      const { run } = await startRun(h, { input: "plan it" });
      const all = await (await events(h, run.id)).rest();
      const started = all.find((e) => e.event === "tool.started");
      const completed = all.find((e) => e.event === "tool.completed");
      assert.deepEqual(started?.data, { call_id: "call_plan", name: "todo", preview: started?.data.preview });
      assert.equal(typeof started?.data.preview, "string");
      assert.deepEqual(Object.keys(completed?.data ?? {}).sort(), ["call_id", "duration_ms", "failed", "name"]);
      assert.equal(completed?.data.call_id, "call_plan");
      assert.equal(completed?.data.failed, false);
      assert.equal(typeof completed?.data.duration_ms, "number");
      assert.ok(started!.id < completed!.id);
      assert.equal(all.at(-1)?.event, "run.completed");
      assert.equal(all.at(-1)?.data.output, "planned");
    });
  });

  test("a delegate_task call is reported as subagent.started and subagent.completed", async () => {
    const script = [
      { toolCalls: [{ id: "call_sub", name: "delegate_task", arguments: { goal: "count the files" } }] },
      { text: "there are 3 files" },
      { text: "the subagent counted 3 files" },
    ];
    await withHarness({ provider: { script } }, async (h) => {
      const { run } = await startRun(h, { input: "delegate the count" });
      const all = await (await events(h, run.id)).rest();
      const started = all.find((e) => e.event === "subagent.started");
      const completed = all.find((e) => e.event === "subagent.completed");
      assert.equal(started?.data.call_id, "call_sub");
      assert.match(started?.data.preview ?? "", /count the files/);
      assert.equal(completed?.data.call_id, "call_sub");
      assert.equal(completed?.data.failed, false);
      assert.equal(
        all.some((e) => e.event.startsWith("tool.")),
        false,
        "reported once, as a subagent",
      );
      assert.equal(all.at(-1)?.data.output, "the subagent counted 3 files");
    });
  });

  test("a client joining mid-run gets the buffered events, and Last-Event-ID resumes without repeats", async () => {
    const slow = gate({ text: "the long answer, in several parts" });
    await withHarness({ provider: { script: [{ toolCalls: [todoCall()] }, slow.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "long job" });
        await slow.arrived;
        // Joined after the tool ran: its events are replayed from the buffer.
        const first = await events(h, run.id);
        const seen = await first.until("tool.completed");
        assert.deepEqual(
          seen.map((e) => e.event),
          ["tool.started", "tool.completed"],
        );
        // Leaving the events stream does not stop the run.
        await first.cancel();
        slow.release();
        const resumed = await (await events(h, run.id, { "last-event-id": String(seen.at(-1)!.id) })).rest();
        assert.equal(resumed[0]?.id, seen.at(-1)!.id + 1, "picks up right after the last event seen");
        assert.equal(resumed.at(-1)?.event, "run.completed");
        assert.equal(
          resumed
            .filter((e) => e.event === "message.delta")
            .map((e) => e.data.text)
            .join(""),
          "the long answer, in several parts",
        );
        const whole = await (await events(h, run.id)).rest();
        assert.deepEqual(
          [...seen, ...resumed].map((e) => e.id),
          whole.map((e) => e.id),
        );
        // The query parameter works the same way; after the terminal event there is nothing more.
        const tail = await (await events(h, run.id, {}, `?last_event_id=${whole.length - 1}`)).rest();
        assert.deepEqual(
          tail.map((e) => e.event),
          ["run.completed"],
        );
        assert.deepEqual(await (await events(h, run.id, { "last-event-id": String(whole.length) })).rest(), []);
      } finally {
        slow.release();
      }
    });
  });

  test("session_id continues a stored session and instructions sit on top of the system prompt", async () => {
    await withHarness({}, async (h) => {
      const { run: first } = await startRun(h, { input: "remember the colour teal" });
      await (await events(h, first.id)).rest();
      const { run: second } = await startRun(h, {
        input: "which colour?",
        session_id: first.session_id,
        instructions: "Answer in one word.",
      });
      assert.equal(second.session_id, first.session_id);
      await (await events(h, second.id)).rest();
      const sent = modelRequests(h).at(-1)!.body.messages as Array<{ role: string; content: string }>;
      assert.match(sent[0]!.content, /Answer in one word\.$/);
      assert.deepEqual(
        sent.slice(1).map((m) => m.content),
        ["remember the colour teal", "ok", "which colour?"],
      );
      const missing = await post(h, "/v1/runs", { input: "x", session_id: "no-such-session" });
      assert.equal(missing.status, 404);
      assert.equal((await errorOf(missing)).code, "session_not_found");
    });
  });
});

describe("runs: stop, steer and approvals", () => {
  test("stop interrupts a running run: it ends cancelled with run.cancelled, and stopping again is a 409", async () => {
    const stuck = gate();
    await withHarness({ provider: { script: [stuck.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "never-ending" });
        const reader = await events(h, run.id);
        await stuck.arrived;
        const stopped = await post(h, `/v1/runs/${run.id}/stop`);
        assert.equal(stopped.status, 200);
        assert.equal(((await stopped.json()) as RunObject).status, "cancelled");
        const rest = await reader.rest();
        assert.equal(rest.at(-1)?.event, "run.cancelled");
        assert.equal((await getRun(h, run.id)).status, "cancelled");
        const again = await post(h, `/v1/runs/${run.id}/stop`);
        assert.equal(again.status, 409);
        assert.equal((await errorOf(again)).code, "run_finished");
        assert.equal((await post(h, `/v1/runs/${run.id}/steer`, { text: "late" })).status, 409);
      } finally {
        stuck.release();
      }
    });
  });

  test("a stop sent right after the start still cancels the run", async () => {
    const stuck = gate();
    await withHarness({ provider: { script: [stuck.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "stop me at once" });
        const stopped = await post(h, `/v1/runs/${run.id}/stop`);
        assert.equal(((await stopped.json()) as RunObject).status, "cancelled");
        assert.deepEqual(
          (await (await events(h, run.id)).rest()).map((e) => e.event).filter((name) => name.startsWith("run.")),
          ["run.cancelled"],
        );
      } finally {
        stuck.release();
      }
    });
  });

  test("steer text reaches the model's next request", async () => {
    const first = gate({ toolCalls: [todoCall()] });
    await withHarness({ provider: { script: [first.step, { text: "done, in metric" }] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "measure the room" });
        await first.arrived;
        const steered = await post(h, `/v1/runs/${run.id}/steer`, { text: "use metric units" });
        assert.equal(steered.status, 200);
        assert.equal(((await steered.json()) as RunObject).status, "running");
        first.release();
        const all = await (await events(h, run.id)).rest();
        assert.equal(all.at(-1)?.event, "run.completed");
        assert.equal(modelRequests(h).length, 2);
        assert.ok(
          toolMessages(modelRequests(h)[1]!).some((content) => content.includes("use metric units")),
          "the note rides with the tool result",
        );
        const empty = await post(h, `/v1/runs/${run.id}/steer`, { text: "  " });
        assert.equal(empty.status, 400);
      } finally {
        first.release();
      }
    });
  });

  /** A run whose model asks to delete ./victim in a temp working directory. */
  async function dangerousRun(decision: string, check: (h: Harness, victim: string) => Promise<void>) {
    const cwd = tempDir("hermes-runs-cwd-");
    const victim = join(cwd, "victim");
    mkdirSync(victim);
    const script = [
      { toolCalls: [{ id: "call_rm", name: "terminal", arguments: { command: "rm -r ./victim" } }] },
      (req: RecordedRequest) => ({ text: `tool said: ${toolMessages(req).at(-1)}` }),
    ];
    await withHarness({ provider: { script }, config: `terminal:\n  cwd: ${JSON.stringify(cwd)}\n` }, async (h) => {
      const { run } = await startRun(h, { input: "clean up" });
      const reader = await events(h, run.id);
      const asked = (await reader.until("approval.requested")).at(-1)!;
      assert.equal(asked.data.command, "rm -r ./victim");
      assert.ok(asked.data.reason);
      assert.match(asked.data.approval_id, /^appr_/);

      const unknown = await post(h, `/v1/runs/${run.id}/approval`, { approval_id: "appr_nope", decision });
      assert.equal(unknown.status, 404);
      const always = await post(h, `/v1/runs/${run.id}/approval`, {
        approval_id: asked.data.approval_id,
        decision: "always",
      });
      assert.equal(always.status, 400, "an HTTP caller cannot edit the permanent allowlist");

      const answered = await post(h, `/v1/runs/${run.id}/approval`, { approval_id: asked.data.approval_id, decision });
      assert.equal(answered.status, 200);
      const rest = await reader.rest();
      assert.equal(rest.find((e) => e.event === "tool.completed")?.data.call_id, "call_rm");
      assert.equal(rest.at(-1)?.event, "run.completed");
      const again = await post(h, `/v1/runs/${run.id}/approval`, { approval_id: asked.data.approval_id, decision });
      assert.equal(again.status, 409, "the run has ended");
      await check(h, victim);
    });
  }

  test("a dangerous command asks over the events stream, and deny leaves the file in place", async () => {
    await dangerousRun("deny", async (h, victim) => {
      assert.ok(existsSync(victim));
      assert.match(toolMessages(modelRequests(h)[1]!).at(-1) ?? "", /denied/);
    });
  });

  test("approving the dangerous command runs it", async () => {
    await dangerousRun("approve", async (h, victim) => {
      assert.equal(existsSync(victim), false);
      assert.doesNotMatch(toolMessages(modelRequests(h)[1]!).at(-1) ?? "", /denied/);
    });
  });
});

describe("runs: idempotency", () => {
  test("the same Idempotency-Key and body replay the run it started, with one model request", async () => {
    await withHarness({}, async (h) => {
      const headers = { "idempotency-key": "job-1" };
      const { response: first, run } = await startRun(h, { input: "once only", instructions: "be brief" }, { headers });
      assert.equal(first.status, 202);
      assert.equal(first.headers.get("idempotency-replayed"), null);
      // The same body with its keys in another order is the same request.
      const { response: again, run: replayed } = await startRun(
        h,
        { instructions: "be brief", input: "once only" },
        { headers },
      );
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("idempotency-replayed"), "true");
      assert.equal(replayed.id, run.id);
      await (await events(h, run.id)).rest();
      const { run: afterwards } = await startRun(h, { input: "once only", instructions: "be brief" }, { headers });
      assert.equal(afterwards.id, run.id);
      assert.equal(afterwards.status, "completed");
      assert.equal(modelRequests(h).length, 1, "only the first request ran the model");
      // Another key is another request.
      const { run: other } = await startRun(h, { input: "once only" }, { headers: { "idempotency-key": "job-2" } });
      assert.notEqual(other.id, run.id);
    });
  });

  test("reusing an Idempotency-Key with a different body is a 409", async () => {
    await withHarness({}, async (h) => {
      const headers = { "idempotency-key": "job-1" };
      const { run } = await startRun(h, { input: "first body" }, { headers });
      const conflict = await h.request("/v1/runs", {
        method: "POST",
        headers,
        body: JSON.stringify({ input: "second body" }),
      });
      assert.equal(conflict.status, 409);
      const error = await errorOf(conflict);
      assert.equal(error.code, "idempotency_key_reused");
      assert.equal(error.type, "invalid_request_error");
      await (await events(h, run.id)).rest();
      assert.equal(modelRequests(h).length, 1);
    });
  });

  test("an Idempotency-Key still replays after a restart, and the finished run's events come from its record", async () => {
    await withHarness({}, async (h) => {
      const headers = { "idempotency-key": "survives" };
      const { run } = await startRun(h, { input: "durable" }, { headers });
      await (await events(h, run.id)).rest();
      await h.restart();
      const { response, run: replayed } = await startRun(h, { input: "durable" }, { headers });
      assert.equal(response.headers.get("idempotency-replayed"), "true");
      assert.equal(replayed.id, run.id);
      assert.equal(replayed.status, "completed");
      assert.equal(modelRequests(h).length, 1);
      const fresh = await post(h, "/v1/runs", { input: "changed" });
      assert.equal(fresh.status, 202, "without the key it is a new run");
      const after = await (await events(h, run.id)).rest();
      assert.deepEqual(
        after.map((e) => [e.event, e.data.output]),
        [["run.completed", "ok"]],
      );
    });
  });
});

describe("runs: restarts, limits and keys", () => {
  test("a run cut off by shutdown ends interrupted and reads so after the restart", async () => {
    const stuck = gate();
    await withHarness({ provider: { script: [stuck.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "forever" });
        await stuck.arrived;
        await h.restart();
        const stored = await getRun(h, run.id);
        assert.equal(stored.status, "interrupted");
        assert.match(stored.error ?? "", /shutting down/);
        const after = await (await events(h, run.id)).rest();
        assert.deepEqual(
          after.map((e) => [e.event, e.data.status]),
          [["run.failed", "interrupted"]],
        );
      } finally {
        stuck.release();
      }
    });
  });

  test("a run left running by a crash becomes interrupted at the next start", async () => {
    await withHarness({}, async (h) => {
      const store = await openApiServerStore(hermesPaths(h.home).stateDb);
      const now = Date.now();
      await store.createRun({
        id: "run_crashed",
        namespace: namespaceFor(KEY),
        status: "running",
        sessionId: null,
        input: { input: "lost" },
        output: null,
        error: null,
        usage: null,
        createdAt: now,
        updatedAt: now,
      });
      store.close();
      await h.restart();
      const stored = await getRun(h, "run_crashed");
      assert.equal(stored.status, "interrupted");
      assert.match(stored.error ?? "", /server stopped/);
      assert.equal((await post(h, "/v1/runs/run_crashed/stop")).status, 409);
    });
  });

  test("runs beyond max_concurrent_runs get a 429 and leave no record; the key can be retried", async () => {
    const slow = gate();
    await withHarness({ settings: { maxConcurrentRuns: 1 }, provider: { script: [slow.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "one" });
        await slow.arrived;
        const headers = { "idempotency-key": "retry-me" };
        const busy = await h.request("/v1/runs", { method: "POST", headers, body: JSON.stringify({ input: "two" }) });
        assert.equal(busy.status, 429);
        assert.equal(busy.headers.get("retry-after"), "1");
        assert.equal((await errorOf(busy)).code, "rate_limit_exceeded");
        slow.release();
        await (await events(h, run.id)).rest();
        const { response, run: second } = await startRun(h, { input: "two" }, { headers });
        assert.equal(response.status, 202, "the first attempt started nothing, so this one starts the run");
        assert.equal(response.headers.get("idempotency-replayed"), null);
        assert.equal((await (await events(h, second.id)).rest()).at(-1)?.event, "run.completed");
      } finally {
        slow.release();
      }
    });
  });

  test("another key's run is a 404 on every run endpoint", async () => {
    const slow = gate();
    await withHarness({ settings: { keys: [KEY, OTHER_KEY] }, provider: { script: [slow.step] } }, async (h) => {
      try {
        const { run } = await startRun(h, { input: "mine" });
        await slow.arrived;
        const probes: Array<[string, RequestInit]> = [
          [`/v1/runs/${run.id}`, {}],
          [`/v1/runs/${run.id}/events`, {}],
          [`/v1/runs/${run.id}/stop`, { method: "POST", body: "{}" }],
          [`/v1/runs/${run.id}/steer`, { method: "POST", body: JSON.stringify({ text: "hijack" }) }],
          [
            `/v1/runs/${run.id}/approval`,
            { method: "POST", body: JSON.stringify({ approval_id: "appr_x", decision: "approve" }) },
          ],
        ];
        for (const [path, init] of probes) {
          const response = await h.request(path, { ...init, key: OTHER_KEY });
          assert.equal(response.status, 404, path);
          assert.equal((await errorOf(response)).code, "run_not_found", path);
        }
        const foreignSession = await post(h, "/v1/runs", { input: "x", session_id: run.session_id }, OTHER_KEY);
        assert.equal(foreignSession.status, 404);
        slow.release();
        assert.equal((await (await events(h, run.id)).rest()).at(-1)?.event, "run.completed");
        assert.equal((await getRun(h, run.id)).status, "completed");
      } finally {
        slow.release();
      }
    });
  });

  test("malformed requests are 400s and unknown runs 404s, before any model call", async () => {
    await withHarness({}, async (h) => {
      const bad: unknown[] = [{}, { input: "" }, { input: "   " }, { input: 42 }, { input: "x", session_id: 7 }, []];
      for (const body of bad) {
        const response = await post(h, "/v1/runs", body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal((await errorOf(response)).type, "invalid_request_error");
      }
      const longKey = await h.request("/v1/runs", {
        method: "POST",
        headers: { "idempotency-key": "k".repeat(300) },
        body: JSON.stringify({ input: "x" }),
      });
      assert.equal(longKey.status, 400);
      assert.equal((await h.request("/v1/runs/run_unknown")).status, 404);
      assert.equal((await h.request("/v1/runs/run_unknown/events")).status, 404);
      assert.equal((await post(h, "/v1/runs/run_unknown/stop")).status, 404);
      assert.equal((await post(h, "/v1/runs/run_unknown/steer", { text: "x" })).status, 404);
      assert.equal(
        (await post(h, "/v1/runs/run_unknown/approval", { approval_id: "a", decision: "deny" })).status,
        404,
      );
      assert.equal((await post(h, "/v1/runs/run_unknown/approval", { approval_id: "a" })).status, 400);
      assert.equal(modelRequests(h).length, 0);
      const { run } = await startRun(h, { input: "fine" });
      assert.equal((await h.request(`/v1/runs/${run.id}/events`, { headers: { "last-event-id": "abc" } })).status, 400);
      await (await events(h, run.id)).rest();
    });
  });
});

describe("runs: the event buffer", () => {
  test("an idle follower gets keep-alives, and the buffer keeps only the newest events", async (t) => {
    // The follower's idle timer is unref'd (a server's socket keeps the process up); this stands in for it.
    const awake = setInterval(() => {}, 1000);
    t.after(() => clearInterval(awake));
    const log = new RunEventLog(3);
    const closed = new AbortController();
    const follower = log.follow(0, closed.signal, 5);
    assert.deepEqual((await follower.next()).value, "idle");
    for (let i = 1; i <= 5; i++) log.push("message.delta", { text: String(i) });
    assert.deepEqual(
      log.since(0).map((e) => e.id),
      [3, 4, 5],
    );
    assert.equal(((await follower.next()).value as { id: number }).id, 3);
    log.push("run.completed", { output: "12345" });
    log.push("message.delta", { text: "after the end" });
    const rest: unknown[] = [];
    for await (const item of follower) rest.push(item === "idle" ? item : item.event);
    assert.deepEqual(rest, ["message.delta", "message.delta", "run.completed"]);
    assert.equal(log.ended, true);
    closed.abort();
  });
});
