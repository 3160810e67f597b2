import assert from "node:assert/strict";
import { test } from "node:test";
import { type Harness, KEY, OTHER_KEY, startHarness } from "./harness.js";

interface ListedRun {
  id: string;
  status: string;
  session_id: string;
  output?: string;
}

interface RunList {
  object: string;
  data: ListedRun[];
  has_more: boolean;
}

/** Starts a run and waits until its event stream has ended (the run is finished and recorded). */
async function finishedRun(h: Harness, body: Record<string, unknown>, key = KEY): Promise<ListedRun> {
  const response = await h.request("/v1/runs", { method: "POST", body: JSON.stringify(body), key });
  assert.equal(response.status, 202, await response.clone().text());
  const run = (await response.json()) as ListedRun;
  const stream = await h.request(`/v1/runs/${run.id}/events`, { key });
  assert.match(await stream.text(), /event: run\.completed/);
  return run;
}

async function list(h: Harness, query = "", key = KEY): Promise<RunList> {
  const response = await h.request(`/v1/runs${query}`, { key });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as RunList;
}

test("GET /v1/runs lists the key's runs newest first, by session and status, in pages", async () => {
  const h = await startHarness({
    settings: { keys: [KEY, OTHER_KEY] },
    provider: { fallback: { text: "done" } },
  });
  try {
    const first = await finishedRun(h, { input: "one" });
    const second = await finishedRun(h, { input: "two", session_id: first.session_id });
    const third = await finishedRun(h, { input: "three" });
    const theirs = await finishedRun(h, { input: "elsewhere" }, OTHER_KEY);

    const all = await list(h);
    assert.equal(all.object, "list");
    assert.deepEqual(
      all.data.map((r) => r.id),
      [third.id, second.id, first.id],
    );
    assert.equal(all.has_more, false);
    assert.equal(all.data[0]?.output, "done", "each entry is the whole run object");

    assert.deepEqual(
      (await list(h, `?session_id=${first.session_id}`)).data.map((r) => r.id),
      [second.id, first.id],
    );
    assert.deepEqual(
      (await list(h, "?status=completed&limit=1")).data.map((r) => r.id),
      [third.id],
    );
    assert.equal((await list(h, "?limit=1")).has_more, true);
    assert.deepEqual(
      (await list(h, "?limit=2&offset=2")).data.map((r) => r.id),
      [first.id],
    );
    assert.deepEqual((await list(h, "?status=failed")).data, []);
    assert.deepEqual(
      (await list(h, "", OTHER_KEY)).data.map((r) => r.id),
      [theirs.id],
      "another key lists only its own runs",
    );
    assert.deepEqual((await list(h, `?session_id=${first.session_id}`, OTHER_KEY)).data, []);
  } finally {
    await h.close();
  }
});

test("GET /v1/runs refuses an unknown status and a bad page with a 400 naming the parameter", async () => {
  const h = await startHarness({});
  try {
    for (const [query, param] of [
      ["?status=done", "status"],
      ["?limit=-1", "limit"],
      ["?offset=x", "offset"],
    ] as const) {
      const response = await h.request(`/v1/runs${query}`);
      assert.equal(response.status, 400, query);
      const { error } = (await response.json()) as { error: { param: string; type: string } };
      assert.equal(error.param, param);
      assert.equal(error.type, "invalid_request_error");
    }
    const unauthenticated = await h.request("/v1/runs", { key: "" });
    assert.equal(unauthenticated.status, 401);
  } finally {
    await h.close();
  }
});
