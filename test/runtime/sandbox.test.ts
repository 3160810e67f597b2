import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { UsageError } from "../../src/runtime/errors.js";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { FILESYSTEM_BIN } from "../tools/fixtures/mcp-helpers.js";

const bwrapAvailable = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p));
const BWRAP_NOTE = "bubblewrap is not installed here, so the sandbox was not exercised (CI installs it)";

let fake: FakeProvider;
const opened: HermesRuntime[] = [];
before(async () => {
  fake = await startFakeProvider({});
});
const systemTmp = process.env.TMPDIR;
after(async () => {
  if (systemTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = systemTmp;
  for (const runtime of opened) await runtime.close();
  await fake.close();
});

interface World {
  runtime: HermesRuntime;
  home: string;
  hermesHome: string;
  cwd: string;
  run(command: string): Promise<{ output: string; exit_code: number }>;
}

async function world(sandbox: string, options: { interactive?: boolean } = {}): Promise<World> {
  const root = tempDir("hermes-sandbox-");
  const home = join(root, "home");
  const hermesHome = join(home, ".hermes");
  const cwd = join(root, "project");
  mkdirSync(hermesHome, { recursive: true });
  mkdirSync(cwd);
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY MATERIAL\n");
  mkdirSync(join(home, "decoy"));
  writeFileSync(join(home, "decoy", "keep.txt"), "precious\n");
  writeFileSync(join(hermesHome, "auth.json"), '{"token":"sk-secret-in-auth-json"}\n');
  writeFileSync(
    join(hermesHome, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\nterminal:\n  cwd: ${cwd}\nsandbox:\n${sandbox}`,
  );
  // The sandbox's writable temp is the process's temp dir: here a private one, so the rest of
  // the system temp dir (where this test's decoys live) is outside every writable root.
  mkdirSync(join(root, "tmp"));
  process.env.TMPDIR = join(root, "tmp");
  const previousHome = process.env.HOME;
  process.env.HOME = home;
  let runtime: HermesRuntime;
  try {
    runtime = await openRuntime({
      home: hermesHome,
      localServers: false,
      skipDotEnv: true,
      interactive: options.interactive ?? false,
      overrides: { yolo: true },
    });
  } finally {
    process.env.HOME = previousHome;
  }
  opened.push(runtime);
  const terminal = runtime.registry.get("terminal")!;
  return {
    runtime,
    home,
    hermesHome,
    cwd,
    run: async (command) =>
      JSON.parse(await terminal.handler({ command }, { cwd, signal: new AbortController().signal, platform: "cron" })),
  };
}

test("workspace-write: the project and temp are writable, everything else read-only, even in yolo", async (t) => {
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const w = await world("  mode: workspace-write\n");
  assert.equal(w.runtime.sandbox.mode, "workspace-write");
  const inside = await w.run('echo built > out.txt && echo tmp > "$TMPDIR/hermes-sandbox-probe" && cat out.txt');
  assert.equal(inside.exit_code, 0, inside.output);
  assert.equal(readFileSync(join(w.cwd, "out.txt"), "utf8"), "built\n");
  const outside = await w.run(`rm -rf ${join(w.home, "decoy")}; touch ${join(w.home, "new-file")}`);
  assert.notEqual(outside.exit_code, 0);
  assert.match(outside.output, /Read-only file system/);
  assert.equal(readFileSync(join(w.home, "decoy", "keep.txt"), "utf8"), "precious\n");
  assert.equal(existsSync(join(w.home, "new-file")), false);
});

test("sandboxed commands see neither the agent's credentials nor the user's keys", async (t) => {
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const w = await world("  mode: workspace-write\n");
  const read = await w.run(
    `cat ${join(w.hermesHome, "auth.json")}; cat ${join(w.hermesHome, "config.yaml")}; ls -A ${join(w.home, ".ssh")}; echo end`,
  );
  assert.doesNotMatch(read.output, /sk-secret-in-auth-json|base_url|id_ed25519/);
  assert.match(read.output, /end/);
  const overwrite = await w.run(`echo 'approvals: {mode: off}' > ${join(w.hermesHome, "config.yaml")}`);
  assert.notEqual(overwrite.exit_code, 0);
  assert.match(readFileSync(join(w.hermesHome, "config.yaml"), "utf8"), /base_url/);
});

test("read-only mode keeps even the project read-only, and network: false cuts the network", async (t) => {
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const server = createServer((_req, res) => res.end("reachable")).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const w = await world("  mode: read-only\n  network: false\n");
    const write = await w.run("echo x > out.txt");
    assert.notEqual(write.exit_code, 0);
    const net = await w.run(`(exec 3<>/dev/tcp/127.0.0.1/${port} && echo reachable) 2>/dev/null || echo unreachable`);
    assert.equal(net.output.trim(), "unreachable");
  } finally {
    server.close();
  }
});

test("network: [hosts] reaches the allowed hosts through the proxy and nothing else", async (t) => {
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const server = createServer((_req, res) => res.end("reachable")).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const w = await world("  mode: workspace-write\n  network: [localhost]\n");
    const allowed = await w.run(`curl -sS http://localhost:${port}/`);
    assert.equal(allowed.output.trim(), "reachable", allowed.output);
    const tunnelled = await w.run(`curl -sS --proxytunnel http://localhost:${port}/`);
    assert.equal(tunnelled.output.trim(), "reachable", tunnelled.output);
    const other = await w.run(`curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/`);
    assert.equal(other.output.trim(), "403", other.output);
    const otherTunnel = await w.run(`curl -sS --proxytunnel http://127.0.0.1:${port}/ || echo refused`);
    assert.match(otherTunnel.output, /refused/);
    assert.doesNotMatch(otherTunnel.output, /reachable/);
    const direct = await w.run(
      `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo reachable) 2>/dev/null || echo unreachable`,
    );
    assert.equal(direct.output.trim(), "unreachable");
    const exit = await w.run("exit 7");
    assert.equal(exit.exit_code, 7, "the relay in front of the command passes its exit status on");
  } finally {
    server.close();
  }
});

test("an MCP server with sandbox: true runs confined; one without it does not", async (t) => {
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const outside = tempDir("hermes-mcp-outside-");
  const server = (sandbox: boolean) =>
    `    command: ${process.execPath}\n    args: [${FILESYSTEM_BIN}, ${outside}]\n    sandbox: ${sandbox}\n`;
  const w = await world(
    `  mode: workspace-write\nmcp_discovery_timeout: 60\nmcp_servers:\n  boxed:\n${server(true)}  free:\n${server(false)}`,
  );
  const ctx = { cwd: w.cwd, signal: new AbortController().signal };
  const boxed = await w.runtime.registry
    .get("mcp_boxed_write_file")!
    .handler({ path: join(outside, "boxed.txt"), content: "x" }, ctx);
  assert.match(boxed, /read-only file system|EROFS/i);
  assert.equal(existsSync(join(outside, "boxed.txt")), false);
  await w.runtime.registry.get("mcp_free_write_file")!.handler({ path: join(outside, "free.txt"), content: "x" }, ctx);
  assert.equal(readFileSync(join(outside, "free.txt"), "utf8"), "x");
});

test("auto confines unattended runs and leaves the interactive TUI to its approvals", async (t) => {
  const tui = await world("  mode: auto\n", { interactive: true });
  assert.equal(tui.runtime.sandbox.mode, "off");
  if (!bwrapAvailable) return t.diagnostic(BWRAP_NOTE);
  const unattended = await world("  mode: auto\n");
  assert.equal(unattended.runtime.sandbox.mode, "workspace-write");
});

test("a sandbox mode asked for explicitly fails closed when bubblewrap is missing", async () => {
  const path = process.env.PATH;
  process.env.PATH = tempDir("hermes-empty-path-");
  try {
    await assert.rejects(world("  mode: workspace-write\n"), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /bubblewrap \(bwrap\) is not installed.*sandbox\.mode: off/);
      return true;
    });
    const auto = await world("  mode: auto\n");
    assert.equal(auto.runtime.sandbox.mode, "off");
  } finally {
    process.env.PATH = path;
  }
});
