// Diagnostics after edits with a real language server: TypeScript 7's own (`tsc --lsp --stdio`,
// this repository's devDependency) on a temp project, and the runtime's wiring of `lsp.*`.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { lspDiagnostics } from "../../src/runtime/lsp.js";
import { configSchema } from "../../src/state/config-schema.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { editTools, FAKE_SERVER, isRunning, managerWith, startedPids, typescriptProject } from "./lsp-helpers.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const home = tempDir("lsp-home");
const project = typescriptProject();
const manager = managerWith(home);
const registry = editTools(manager);
const ctx = makeContext(project);
after(() => manager.close());

test("write_file that breaks a type gets the TypeScript error with its line and code; patch that fixes it gets errors 0, from the same server", async () => {
  const broken = await callTool(
    registry,
    "write_file",
    { path: "src/count.ts", content: 'export const count: number = 1;\nexport const label: number = "three";\n' },
    ctx,
  );
  assert.equal(broken.success, true);
  assert.deepEqual(broken.diagnostics, {
    errors: 1,
    items: ["src/count.ts:2:14 error TS2322: Type 'string' is not assignable to type 'number'."],
  });
  const [server] = manager.running();
  assert.equal(server?.language, "typescript");
  assert.equal(server?.root, project);
  // The compiler binary itself, not the Node launcher in node_modules/.bin.
  assert.match(server?.command[0] ?? "", /@typescript\/typescript-[\w-]+\/lib\/tsc(\.exe)?$/);
  assert.deepEqual(server?.command.slice(1), ["--lsp", "--stdio"]);

  const fixed = await callTool(
    registry,
    "patch",
    { path: "src/count.ts", old_string: 'label: number = "three"', new_string: "label: number = 3" },
    ctx,
  );
  assert.equal(fixed.success, true);
  assert.deepEqual(fixed.diagnostics, { errors: 0 });
  assert.deepEqual(
    manager.running().map((s) => s.pid),
    [server?.pid],
    "one server process served both edits",
  );
});

test("a file a command changed on disk is re-read before the next check", async () => {
  writeFileSync(join(project, "src", "size.ts"), "export const size: number = 1;\n");
  const user = "import { size } from './size.js';\nexport const doubled: number = size * 2;\n";
  const clean = await callTool(registry, "write_file", { path: "src/user.ts", content: user }, ctx);
  assert.deepEqual(clean.diagnostics, { errors: 0 });
  // As a terminal command would: behind the edit tools' back.
  writeFileSync(join(project, "src", "size.ts"), 'export const size: string = "big";\n');
  const again = await callTool(registry, "write_file", { path: "src/user.ts", content: `${user}// touched\n` }, ctx);
  const diagnostics = again.diagnostics as { errors: number; items: string[] };
  assert.equal(diagnostics.errors, 1);
  assert.match(diagnostics.items[0] ?? "", /^src\/user\.ts:2:32 error TS2362: /);
});

test("a file the project's language has no server for gets nothing added", async () => {
  const result = await callTool(registry, "write_file", { path: "notes.txt", content: "hello\n" }, ctx);
  assert.deepEqual(Object.keys(result).sort(), ["bytes_written", "created", "path", "success"]);
});

test("lsp.enabled false, or wait_mode none, gives the edit tools no diagnostics hook", () => {
  assert.equal(lspDiagnostics(configSchema.parse({ lsp: { enabled: false } }), home), undefined);
  assert.equal(lspDiagnostics(configSchema.parse({ lsp: { wait_mode: "none" } }), home), undefined);
  assert.ok(lspDiagnostics(configSchema.parse({}), home));
  const config = configSchema.parse({});
  assert.deepEqual(config.lsp, {
    enabled: true,
    wait_mode: "document",
    wait_timeout: 5,
    install_strategy: "auto",
    servers: {},
  });
});

test("a bad lsp.servers entry is reported with its path", () => {
  const result = configSchema.safeParse({ lsp: { servers: { fake: { command: "fake-ls", extensions: [".x"] } } } });
  assert.equal(result.success, false);
  const issue = result.success ? undefined : result.error.issues[0];
  assert.deepEqual(issue?.path, ["lsp", "servers", "fake", "command"]);
});

test("the runtime checks edits with lsp.servers and its close stops the server", async () => {
  const startLog = join(tempDir("lsp-starts"), "starts.log");
  const work = tempDir("lsp-runtime-work");
  const t = await openTestRuntime({
    config: `lsp:\n  wait_timeout: 10\n  servers:\n    fake:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_SERVER)}, push, ${JSON.stringify(startLog)}]\n      extensions: [".fake"]\n`,
  });
  let closed = false;
  try {
    assert.match(t.runtime.registry.get("write_file")?.description ?? "", /diagnostics/);
    const result = await callTool(
      t.runtime.registry,
      "write_file",
      { path: "a.fake", content: "fine\nERROR here\n" },
      makeContext(work),
    );
    assert.deepEqual(result.diagnostics, { errors: 1, items: ["a.fake:2:1 error F2: problem on line 2"] });
    const [pid] = startedPids(startLog);
    assert.ok(pid && isRunning(pid), "the server runs between edits");
    await t.close();
    closed = true;
    assert.equal(isRunning(pid), false, "the runtime's close stopped the server");
  } finally {
    if (!closed) await t.close();
  }
});

test("with lsp.enabled false the runtime's edit tools say and add nothing about diagnostics", async () => {
  const work = tempDir("lsp-runtime-off");
  const t = await openTestRuntime({
    config: `lsp:\n  enabled: false\n  servers:\n    fake:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_SERVER)}, push]\n      extensions: [".fake"]\n`,
  });
  try {
    assert.doesNotMatch(t.runtime.registry.get("patch")?.description ?? "", /diagnostics/);
    const result = await callTool(
      t.runtime.registry,
      "write_file",
      { path: "a.fake", content: "ERROR\n" },
      makeContext(work),
    );
    assert.equal(result.success, true);
    assert.equal(result.diagnostics, undefined);
    assert.equal(result.diagnostics_note, undefined);
  } finally {
    await t.close();
  }
});

test("the LSP client loads on the first edit, never for a run that edits nothing", async () => {
  const root = resolve(import.meta.dirname, "..", "..");
  const work = tempDir("lsp-lazy");
  const script = `
    import { configSchema } from ${JSON.stringify(join(root, "src/state/config-schema.ts"))};
    import { lspDiagnostics } from ${JSON.stringify(join(root, "src/runtime/lsp.ts"))};
    import { registerBuiltinTools } from ${JSON.stringify(join(root, "src/tools/builtin/index.ts"))};
    import { ToolRegistry } from ${JSON.stringify(join(root, "src/tools/registry.ts"))};
    import { appendFileSync } from "node:fs";
    const lsp = lspDiagnostics(configSchema.parse({}), ${JSON.stringify(home)});
    const registry = new ToolRegistry();
    registerBuiltinTools(registry, { diagnose: lsp.diagnose });
    const ctx = { cwd: ${JSON.stringify(work)}, signal: new AbortController().signal };
    await registry.get("read_file").handler({ path: "missing.ts" }, ctx);
    appendFileSync(process.env.IMPORT_TRACE_FILE, "--- first edit\\n");
    await registry.get("write_file").handler({ path: "a.ts", content: "export {};\\n" }, ctx);
    await lsp.close();
  `;
  const traceFile = join(work, "imports.txt");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", join(root, "test/helpers/import-trace.mjs"), "--input-type=module", "-e", script],
    { cwd: root, env: { ...process.env, IMPORT_TRACE_FILE: traceFile }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (part: Buffer) => {
    stderr += part.toString();
  });
  const [code] = await once(child, "exit");
  assert.equal(code, 0, stderr);
  const [before, afterEdit] = readFileSync(traceFile, "utf8").split("--- first edit\n");
  const lspModules = /\/src\/tools\/lsp\/(manager|client|jsonrpc|servers|disk-changes|report)\.ts$/m;
  assert.doesNotMatch(before ?? "", lspModules);
  assert.match(afterEdit ?? "", /\/src\/tools\/lsp\/client\.ts$/m);
});
