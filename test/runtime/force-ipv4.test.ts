import assert from "node:assert/strict";
import dns from "node:dns";
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { traceRun } from "../helpers/bundle-trace.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";

const startOrder = dns.getDefaultResultOrder();
const startAutoSelect = net.getDefaultAutoSelectFamily();

/** Puts the process-wide defaults back, so later tests in this process see Node's own. */
function restoreDefaults(): void {
  dns.setDefaultResultOrder(startOrder);
  net.setDefaultAutoSelectFamily(startAutoSelect);
}

test("with network.force_ipv4 off (the default) opening a runtime leaves name resolution as Node has it", async () => {
  const rt = await openTestRuntime();
  try {
    assert.equal(rt.runtime.config.network.force_ipv4, false);
    assert.equal(dns.getDefaultResultOrder(), startOrder);
    assert.equal(net.getDefaultAutoSelectFamily(), startAutoSelect);
  } finally {
    await rt.close();
    restoreDefaults();
  }
});

test("with network.force_ipv4 on, IPv4 answers come first and only the first address is tried", async () => {
  const rt = await openTestRuntime({
    config: "network:\n  force_ipv4: true\n",
    // The model is reached by name, so the turn below resolves it with the forced order.
    setup: (home) => {
      const file = join(home, "config.yaml");
      writeFileSync(file, readFileSync(file, "utf8").replace("http://127.0.0.1:", "http://localhost:"));
    },
  });
  try {
    assert.equal(dns.getDefaultResultOrder(), "ipv4first");
    assert.equal(net.getDefaultAutoSelectFamily(), false);
    // localhost has both an A and an AAAA record on most machines; IPv4 now comes first.
    const addresses = await dns.promises.lookup("localhost", { all: true });
    assert.equal(addresses[0]?.address, "127.0.0.1");
    const firstV6 = addresses.findIndex((a) => a.family === 6);
    const lastV4 = addresses.findLastIndex((a) => a.family === 4);
    assert.ok(firstV6 === -1 || firstV6 > lastV4, `every IPv4 address before IPv6: ${JSON.stringify(addresses)}`);
    // A turn reaches the model at localhost:<port>, which listens on 127.0.0.1 only.
    assert.match(readFileSync(join(rt.home, "config.yaml"), "utf8"), /base_url: http:\/\/localhost:/);
    const result = await rt.runtime.createAgent().runConversation("hello");
    assert.equal(result.finalResponse, "ok");
  } finally {
    await rt.close();
    restoreDefaults();
  }
});

test("hermes --version loads no node:dns, even with network.force_ipv4 on", async () => {
  const home = tempDir("hermes-ipv4-trace-");
  writeFileSync(join(home, "config.yaml"), "network:\n  force_ipv4: true\n");
  const { builtins } = await traceRun(["--version"], { home });
  assert.ok(builtins.includes("fs"), "the trace lists Node's modules");
  assert.deepEqual(
    builtins.filter((name) => name === "dns" || name === "dns/promises"),
    [],
  );
});
