import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { lastToolResults } from "../helpers/agent-harness.js";
import { tempDir } from "../state/temp-dir.js";
import { startGateway } from "./harness.js";

test("/mode plan in a chat makes that chat's agent read-only, kept across a new agent; /mode ask lets it write", async () => {
  const work = tempDir("hermes-gw-mode-");
  const gw = await startGateway({
    config: `terminal:\n  cwd: ${work}\n`,
    provider: {
      script: [
        { toolCalls: [{ name: "write_file", arguments: { path: "plan.txt", content: "x" } }] },
        (req) => ({ text: `tool: ${lastToolResults(req)[0]!.slice(0, 30)}` }),
        { toolCalls: [{ name: "write_file", arguments: { path: "plan.txt", content: "x" } }] },
        { text: "written" },
      ],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "/mode" });
    await gw.adapter.waitForText(/^Mode: ask\. /);
    gw.adapter.inject({ messageId: "2", text: "/mode sideways" });
    await gw.adapter.waitForText(/^Usage: \/mode plan\|ask\|auto-edit\|yolo$/);
    gw.adapter.inject({ messageId: "3", text: "/mode plan" });
    await gw.adapter.waitForText(/^Plan mode: /);
    gw.adapter.inject({ messageId: "4", text: "write it" });
    await gw.adapter.waitForText(/^tool: Plan mode is on \(read-only\)/);
    assert.equal(existsSync(join(work, "plan.txt")), false);
    gw.adapter.inject({ messageId: "5", text: "/mode ask" });
    await gw.adapter.waitForText(/^Mode: ask\.$/);
    gw.adapter.inject({ messageId: "6", text: "now write it" });
    await gw.adapter.waitForText(/^written$/);
    assert.ok(existsSync(join(work, "plan.txt")));
  } finally {
    await gw.close();
  }
});
