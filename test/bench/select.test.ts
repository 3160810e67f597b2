import assert from "node:assert/strict";
import { test } from "node:test";
import { selectGroups } from "../../bench/select.js";

const groups = [{ name: "cold-start" }, { name: "loop" }, { name: "peers", optIn: true }];
const names = (list: Array<{ name: string }>) => list.map((g) => g.name);

test("without --only every group runs except the opt-in ones", () => {
  assert.deepEqual(names(selectGroups(groups, {})), ["cold-start", "loop"]);
});

test("--peers adds the opt-in group to the default set", () => {
  assert.deepEqual(names(selectGroups(groups, { optIn: ["peers"] })), ["cold-start", "loop", "peers"]);
});

test("--only runs just the named groups, opt-in ones included", () => {
  assert.deepEqual(names(selectGroups(groups, { only: "loop" })), ["loop"]);
  assert.deepEqual(names(selectGroups(groups, { only: "peers, cold-start" })), ["cold-start", "peers"]);
});

test("an unknown group name is an error that lists the known ones", () => {
  assert.throws(() => selectGroups(groups, { only: "loops" }), /unknown group loops; groups: cold-start, loop, peers/);
});
