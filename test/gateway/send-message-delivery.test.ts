import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerTerminalSendMessage } from "../../src/cli/send-message-tool.js";
import { writeProcessState } from "../../src/gateway/process-state.js";
import { loadConfig } from "../../src/state/config.js";
import { openGatewayStore } from "../../src/state/gateway-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, startGateway } from "./harness.js";

const TEST_PLATFORM = "platforms:\n  test:\n    enabled: true\n    home_channel: home-1\n";

test("a message the terminal queues in another process is sent by the running gateway's delivery sweep", async () => {
  const gw = await startGateway({
    config: TEST_PLATFORM,
    provider: {
      script: [
        { toolCalls: [{ name: "send_message", arguments: { target: "test", message: "Build 512 is green." } }] },
        { text: "Queued it for the gateway." },
      ],
    },
  });
  try {
    // The terminal tells a running gateway by its state file.
    writeProcessState(gw.home, { pid: process.pid, startedAt: 0, updatedAt: 0, apiServer: null, platforms: {} });
    const run = await runNode(["--import", "tsx", "src/cli/main.ts", "chat", "-q", "tell the team", "-Q"], {
      env: { ...process.env, HERMES_HOME: gw.home },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Queued it for the gateway\./);
    const second = modelRequests(gw.fake)[1];
    assert.ok(second, "the model was asked again with the tool's result");
    const toolMessage = (second.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    );
    const result = JSON.parse(toolMessage?.content ?? "{}");
    assert.deepEqual(
      [result.success, result.target, result.status, result.gateway_running],
      [true, "test:home-1", "queued", true],
      JSON.stringify(result),
    );
    assert.match(result.note, /the running gateway sends it within seconds/);

    await gw.runner.deliveries.sweep();
    await gw.adapter.waitForText(/Build 512 is green\./, "home-1");
    assert.equal((await gw.store.getDelivery(result.delivery_id))?.state, "sent");
  } finally {
    await gw.close();
  }
});

test("the terminal's tool opens the gateway store on its first call only, and says when no gateway runs", async () => {
  const home = tempDir("hermes-send-terminal-");
  writeFileSync(join(home, "config.yaml"), TEST_PLATFORM);
  const { config } = loadConfig({ home });
  const registry = new ToolRegistry();
  let storeAsked = 0;
  const tool = registerTerminalSendMessage(
    {
      registry,
      config,
      home,
      get storeLocation() {
        storeAsked += 1;
        return join(home, "state.db");
      },
    },
    {},
  );
  try {
    assert.equal(await registry.isAvailable("send_message"), true, "offered: a platform is set up");
    assert.equal(storeAsked, 0, "registering and checking open nothing");
    const spec = registry.get("send_message");
    assert.ok(spec);
    const ctx = { cwd: home, signal: new AbortController().signal };
    const result = JSON.parse(await spec.handler({ target: "test:chat-5", message: "hello" } as never, ctx));
    assert.deepEqual([result.status, result.gateway_running], ["queued", false]);
    assert.match(result.note, /no gateway is running: it is sent when one starts \(hermes gateway run/);
    const listed = JSON.parse(await spec.handler({ action: "list" } as never, ctx));
    assert.deepEqual(listed.platforms, [{ platform: "test", home_channel: "test:home-1" }]);
    assert.equal(storeAsked, 1, "opened once, on the first call");

    const store = await openGatewayStore(join(home, "state.db"));
    try {
      const record = await store.getDelivery(result.delivery_id);
      assert.deepEqual(
        [record?.state, record?.chatId, record?.body],
        ["pending", "chat-5", { text: "hello" }],
        "left in the ledger for the gateway",
      );
    } finally {
      store.close();
    }
  } finally {
    await tool.close();
  }

  const bare = new ToolRegistry();
  registerTerminalSendMessage(
    { registry: bare, config: loadConfig({ home: tempDir() }).config, home, storeLocation: "" },
    {},
  );
  assert.equal(await bare.isAvailable("send_message"), false, "not offered while no platform is set up");
});

test("hermes tools reports send_message available once a platform is set up, unavailable before", async () => {
  const { toolsetReport } = await import("../../src/cli/commands/tools.js");
  const stateOf = async (config: string) => {
    const home = tempDir("hermes-send-tools-");
    writeFileSync(join(home, "config.yaml"), config);
    const reports = await toolsetReport([], home, loadConfig({ home }).config);
    return reports.find((r) => r.name === "messaging")?.tools.find((t) => t.name === "send_message")?.state;
  };
  assert.equal(await stateOf(TEST_PLATFORM), "available");
  assert.equal(await stateOf("platforms:\n  test:\n    enabled: false\n"), "unavailable");
});
