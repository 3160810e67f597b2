import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRss, rssMethod, runNode, runNodeOk } from "../../bench/child.js";

test("parseRss reads the figure on the last line, after GNU time's exit-status note", () => {
  assert.equal(parseRss("51234\n"), 51234);
  assert.equal(parseRss("Command exited with non-zero status 1\n42156\n"), 42156);
});

test("the preloaded probe reports the child's max RSS and keeps its output", async () => {
  const run = await runNode(["-e", "process.stdout.write('out'); process.stderr.write('err')"], { method: "probe" });
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "out");
  assert.equal(run.stderr, "err");
  assert.ok(run.maxRssKiB > 1024, `max RSS ${run.maxRssKiB} KiB`);
});

test("the detected method reports a max RSS that grows with what the child allocates", async () => {
  const method = rssMethod();
  const small = await runNodeOk(["-e", "0"], { method });
  const big = await runNodeOk(["-e", "const b = Buffer.alloc(200 * 1024 * 1024, 1); b[0]"], { method });
  assert.ok(big.maxRssKiB > small.maxRssKiB + 100 * 1024, `${method}: ${small.maxRssKiB} vs ${big.maxRssKiB} KiB`);
});

test("runNodeOk fails with the child's stderr when it exits non-zero", async () => {
  await assert.rejects(runNodeOk(["-e", "console.error('boom'); process.exit(3)"]), /exited with 3:\nboom/);
});
