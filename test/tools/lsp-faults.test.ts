// Diagnostics after edits against the fake language server (test/fixtures/lsp/fake-server.mjs):
// pushed diagnostics, the caps of the result, and servers that stay silent, crash, hang or
// refuse to stop. Each edit itself must still succeed.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { LspManager } from "../../src/tools/lsp/manager.js";
import { configureSandbox } from "../../src/tools/sandbox.js";
import { editTools, fakeServer, isRunning, managerWith, startedPids, typescriptProject } from "./lsp-helpers.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const home = tempDir("lsp-faults-home");
const managers: LspManager[] = [];
after(() => Promise.all(managers.map((manager) => manager.close())));

function setUp(mode: string, options: Parameters<typeof managerWith>[1] = {}) {
  const work = tempDir("lsp-faults-work");
  const startLog = join(work, "starts.log");
  const manager = managerWith(home, { servers: fakeServer(mode, [startLog]), ...options });
  managers.push(manager);
  return { work, startLog, manager, registry: editTools(manager), ctx: makeContext(work) };
}

test("pushed diagnostics: errors first, hints left out, at most 20 lines and the rest counted", async () => {
  const { registry, ctx } = setUp("push");
  const lines = ["HINT unused", ...Array.from({ length: 25 }, () => "WARN"), "ERROR a", "ERROR b", "ERROR c"];
  const result = await callTool(registry, "write_file", { path: "many.fake", content: lines.join("\n") }, ctx);
  const diagnostics = result.diagnostics as { errors: number; warnings: number; items: string[]; omitted: number };
  assert.equal(diagnostics.errors, 3);
  assert.equal(diagnostics.warnings, 25);
  assert.equal(diagnostics.items.length, 20);
  assert.deepEqual(diagnostics.items.slice(0, 4), [
    "many.fake:27:1 error F27: problem on line 27",
    "many.fake:28:1 error F28: problem on line 28",
    "many.fake:29:1 error F29: problem on line 29",
    "many.fake:2:1 warning F2: problem on line 2",
  ]);
  assert.equal(diagnostics.omitted, 8);
  assert.ok(!diagnostics.items.some((item) => item.includes("line 1:")), "the hint is left out");
});

test("a later edit waits for the diagnostics of its own version, not the previous ones", async () => {
  const { registry, ctx, startLog } = setUp("push");
  const first = await callTool(registry, "write_file", { path: "v.fake", content: "ERROR\n" }, ctx);
  assert.equal((first.diagnostics as { errors: number }).errors, 1);
  const second = await callTool(registry, "write_file", { path: "v.fake", content: "fine\n" }, ctx);
  assert.deepEqual(second.diagnostics, { errors: 0 });
  assert.equal(startedPids(startLog).length, 1, "one server for both edits");
});

test("a V4A patch over several files reports them in one summary", async () => {
  const { registry, ctx } = setUp("push");
  const patch = [
    "*** Begin Patch",
    "*** Add File: one.fake",
    "+ERROR in one",
    "*** Add File: two.fake",
    "+ok",
    "+WARN in two",
    "*** End Patch",
  ].join("\n");
  const result = await callTool(registry, "patch", { mode: "patch", patch }, ctx);
  assert.equal(result.success, true);
  assert.deepEqual(result.diagnostics, {
    errors: 1,
    warnings: 1,
    items: ["one.fake:1:1 error F1: problem on line 1", "two.fake:2:1 warning F2: problem on line 2"],
  });
});

test("a server that never publishes: each edit returns within wait_timeout with a note", async () => {
  const { registry, ctx, work } = setUp("silent", { waitTimeoutSeconds: 0.5 });
  // The first edit's wait also covers the server's start; the second one's only its silence.
  for (const content of ["first\n", "ERROR\n"]) {
    const started = Date.now();
    const result = await callTool(registry, "write_file", { path: "quiet.fake", content }, ctx);
    assert.ok(Date.now() - started < 3000, `returned after ${Date.now() - started} ms`);
    assert.equal(result.success, true);
    assert.equal(readFileSync(join(work, "quiet.fake"), "utf8"), content);
    assert.match(String(result.diagnostics_note), /^no diagnostics: the fake server .* after 0\.5s$/);
    if (content === "ERROR\n") {
      assert.equal(result.diagnostics_note, "no diagnostics: the fake server published no diagnostics after 0.5s");
    }
  }
});

test("a server that never answers initialize: a note that it is still starting, and close stops it", async () => {
  const { registry, ctx, manager } = setUp("no-init", { waitTimeoutSeconds: 0.3 });
  const result = await callTool(registry, "write_file", { path: "slow.fake", content: "x\n" }, ctx);
  assert.equal(result.diagnostics_note, "no diagnostics: the fake server is still starting after 0.3s");
  const [server] = manager.running();
  const pid = server?.pid;
  assert.ok(pid && isRunning(pid));
  await manager.close();
  assert.equal(isRunning(pid), false);
});

test("a crashing server: the edit succeeds with one note, and the server is started at most three times", async () => {
  const { registry, ctx, work, startLog } = setUp("crash");
  const results = [];
  for (let i = 0; i < 5; i++) {
    results.push(await callTool(registry, "write_file", { path: "boom.fake", content: `edit ${i}\n` }, ctx));
  }
  for (const result of results) assert.equal(result.success, true);
  assert.equal(readFileSync(join(work, "boom.fake"), "utf8"), "edit 4\n");
  assert.equal(
    results[0]?.diagnostics_note,
    "diagnostics unavailable: the fake server exited (code 3): fatal error: boom",
  );
  for (const result of results.slice(1)) {
    assert.equal(result.diagnostics_note, undefined);
    assert.equal(result.diagnostics, undefined);
  }
  assert.equal(startedPids(startLog).length, 3);
});

test("a server that dies when a document opens is reported, and a new one serves the next edit", async () => {
  const { registry, ctx, startLog } = setUp("crash-on-open");
  const first = await callTool(registry, "write_file", { path: "a.fake", content: "x\n" }, ctx);
  assert.equal(first.success, true);
  assert.equal(first.diagnostics_note, "diagnostics unavailable: the fake server exited (code 4)");
  await callTool(registry, "write_file", { path: "a.fake", content: "y\n" }, ctx);
  assert.equal(startedPids(startLog).length, 2);
});

test("a server whose output is not LSP is noted and stopped", async () => {
  const { registry, ctx, manager } = setUp("garbage");
  const result = await callTool(registry, "write_file", { path: "g.fake", content: "x\n" }, ctx);
  assert.equal(result.success, true);
  assert.equal(
    result.diagnostics_note,
    "diagnostics unavailable: the fake server sent a message without a valid Content-Length",
  );
  assert.deepEqual(manager.running(), []);
});

test("a server that answers the pull with an error is noted once", async () => {
  const { registry, ctx } = setUp("pull-error");
  const first = await callTool(registry, "write_file", { path: "p.fake", content: "x\n" }, ctx);
  assert.equal(first.diagnostics_note, "diagnostics unavailable: the fake server answered: internal failure");
  const second = await callTool(registry, "write_file", { path: "p.fake", content: "y\n" }, ctx);
  assert.equal(second.success, true);
  assert.equal(second.diagnostics_note, undefined);
});

test("close kills a server that ignores shutdown, exit and SIGTERM", async () => {
  const { registry, ctx, startLog, manager } = setUp("stubborn");
  const result = await callTool(registry, "write_file", { path: "s.fake", content: "ERROR\n" }, ctx);
  assert.equal((result.diagnostics as { errors: number }).errors, 1);
  const [pid] = startedPids(startLog);
  assert.ok(pid && isRunning(pid));
  await manager.close();
  assert.equal(isRunning(pid), false);
});

test("one server per workspace root, and the least recently used one stops past maxServers", async () => {
  const startLog = join(tempDir("lsp-lru"), "starts.log");
  const manager = managerWith(home, { servers: fakeServer("push", [startLog]), maxServers: 1 });
  managers.push(manager);
  const registry = editTools(manager);
  const [first, second] = [tempDir("lsp-root-a"), tempDir("lsp-root-b")];
  await callTool(registry, "write_file", { path: "a.fake", content: "x\n" }, makeContext(first));
  await callTool(registry, "write_file", { path: "b.fake", content: "x\n" }, makeContext(first));
  assert.deepEqual(
    manager.running().map((server) => server.root),
    [first],
  );
  await callTool(registry, "write_file", { path: "a.fake", content: "x\n" }, makeContext(second));
  assert.deepEqual(
    manager.running().map((server) => server.root),
    [second],
  );
  await manager.close();
  const pids = startedPids(startLog);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.equal(isRunning(pid), false);
});

test("no server found: nothing is added and nothing fails", async () => {
  const emptyPath = tempDir("lsp-empty-path");
  const manager = managerWith(home, { env: () => ({ ...process.env, PATH: emptyPath }) });
  managers.push(manager);
  const registry = editTools(manager);
  const work = tempDir("lsp-nothing");
  for (const path of ["main.py", "main.go", "lib.rs", "main.c", "index.ts"]) {
    const result = await callTool(registry, "write_file", { path, content: "x\n" }, makeContext(work));
    assert.equal(result.success, true);
    assert.equal(result.diagnostics, undefined, path);
    assert.equal(result.diagnostics_note, undefined, path);
  }
  assert.deepEqual(manager.running(), []);
});

test("a configured server whose command is missing is noted once", async () => {
  const manager = managerWith(home, {
    servers: { fake: { command: ["no-such-language-server"], extensions: [".fake"] } },
  });
  managers.push(manager);
  const registry = editTools(manager);
  const ctx = makeContext(tempDir("lsp-missing"));
  const first = await callTool(registry, "write_file", { path: "a.fake", content: "x\n" }, ctx);
  assert.equal(
    first.diagnostics_note,
    'diagnostics unavailable: lsp.servers.fake command "no-such-language-server" was not found',
  );
  const second = await callTool(registry, "write_file", { path: "a.fake", content: "y\n" }, ctx);
  assert.equal(second.diagnostics_note, undefined);
});

test("files outside the working directory or under HERMES_HOME are never checked", async () => {
  const { manager, work, startLog } = setUp("push");
  const outside = join(tempDir("lsp-outside"), "a.fake");
  const hermesHome = join(work, "hermes-home");
  const local = managerWith(hermesHome, { servers: fakeServer("push", [startLog]) });
  managers.push(local);
  for (const [checker, path] of [
    [manager, outside],
    [local, join(hermesHome, "skills", "a.fake")],
  ] as const) {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "ERROR\n");
    assert.equal(await checker.diagnose({ path, text: "ERROR\n", shown: path, cwd: work }), undefined);
  }
  assert.equal(existsSync(startLog), false, "no server was started");
});

test("install_strategy never uses only lsp.servers, and lsp.servers replaces a built-in language", async () => {
  const project = typescriptProject();
  const ctx = makeContext(project);
  const never = managerWith(home, { installStrategy: "never" });
  managers.push(never);
  const skipped = await callTool(editTools(never), "write_file", { path: "src/a.ts", content: "x\n" }, ctx);
  assert.equal(skipped.diagnostics, undefined);
  const replaced = managerWith(home, {
    servers: { typescript: { ...fakeServer("push").fake!, extensions: [".ts"] } },
  });
  managers.push(replaced);
  const result = await callTool(editTools(replaced), "write_file", { path: "src/b.ts", content: "ERROR\n" }, ctx);
  assert.deepEqual(result.diagnostics, { errors: 1, items: ["src/b.ts:1:1 error F1: problem on line 1"] });
});

test("when the sandbox is active, servers run inside it and cannot read what it hides", async (t) => {
  const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => existsSync(p));
  if (!bwrap) {
    t.diagnostic("bubblewrap is not installed here, so the sandbox was not exercised (CI installs it)");
    return;
  }
  const secret = join(tempDir("lsp-secret"), "token.txt");
  writeFileSync(secret, "s3cret");
  const work = tempDir("lsp-sandboxed");
  const plain = managerWith(home, { servers: fakeServer("report-file", [secret]) });
  const confined = managerWith(home, { servers: fakeServer("report-file", [secret]) });
  managers.push(plain, confined);
  const request = { path: join(work, "a.fake"), text: "x\n", shown: "a.fake", cwd: work };
  const seen = await plain.diagnose(request);
  assert.match(seen?.diagnostics?.items?.[0] ?? "", /content: \[s3cret\]/);
  configureSandbox({
    mode: "workspace-write",
    bwrap,
    writableRoots: [],
    network: false,
    hiddenFiles: [secret],
    hiddenDirs: [],
  });
  try {
    const hidden = await confined.diagnose(request);
    // The sandbox shows the file as empty, or refuses to open it: either way, not its content.
    assert.match(hidden?.diagnostics?.items?.[0] ?? "", /content: \[(unreadable)?\]/);
  } finally {
    configureSandbox(undefined);
  }
});
