import assert from "node:assert/strict";
import { test } from "node:test";
import { piReleaseFor } from "../../bench/peers.js";

test("Node 20 measures the last pi release that still installs on it", () => {
  assert.deepEqual(piReleaseFor("20.19.0"), { pkg: "@mariozechner/pi-coding-agent", version: "0.73" });
  assert.deepEqual(piReleaseFor("22.18.1"), { pkg: "@mariozechner/pi-coding-agent", version: "0.73" });
});

test("Node 22.19 and newer measure the newer pi package", () => {
  for (const node of ["22.19.0", "24.21.0", "25.0.0"]) {
    assert.equal(piReleaseFor(node).pkg, "@earendil-works/pi-coding-agent", node);
  }
});
