import assert from "node:assert/strict";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import { searchFilesTool } from "../../src/tools/builtin/search-files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const base = tempDir("protected");
const hermesHome = join(base, "home", ".hermes");
process.env.HERMES_HOME = hermesHome;
mkdirSync(hermesHome, { recursive: true });
const SECRET = "sk-live-0123456789abcdefSECRET";
writeFileSync(join(hermesHome, ".env"), `OPENAI_API_KEY=${SECRET}\n`);
writeFileSync(join(hermesHome, "auth.json"), JSON.stringify({ credential_pool: { openai: [{ token: SECRET }] } }));
writeFileSync(join(hermesHome, "config.yaml"), "approvals:\n  mode: manual\n");
writeFileSync(join(hermesHome, "SOUL.md"), "You are careful.\n");
const project = join(base, "project");
mkdirSync(project);
writeFileSync(join(project, "notes.md"), `the token is not here\n`);

const registry = new ToolRegistry();
registerBuiltinTools(registry, {});
const ctx = makeContext(project);

test("a hard link or symlink to auth.json is refused like auth.json itself", async () => {
  linkSync(join(hermesHome, "auth.json"), join(project, "innocent.json"));
  symlinkSync(join(hermesHome, ".env"), join(project, "innocent.env"));
  for (const path of ["innocent.json", "innocent.env", join(hermesHome, "auth.json")]) {
    const result = await callTool(registry, "read_file", { path }, ctx);
    assert.match(String(result.error), /Refusing to read/, path);
    assert.doesNotMatch(JSON.stringify(result), /SECRET/);
  }
});

test("the agent cannot rewrite its own config.yaml, SOUL.md or credentials, however it names them", async () => {
  symlinkSync(join(hermesHome, "config.yaml"), join(project, "settings.yaml"));
  for (const path of [join(hermesHome, "config.yaml"), join(hermesHome, "SOUL.md"), "settings.yaml"]) {
    const result = await callTool(registry, "write_file", { path, content: "approvals:\n  mode: off\n" }, ctx);
    assert.match(String(result.error), /Refusing to write/, path);
  }
  const patched = await callTool(
    registry,
    "patch",
    { mode: "replace", path: join(hermesHome, "config.yaml"), old_string: "manual", new_string: "off" },
    ctx,
  );
  assert.match(JSON.stringify(patched), /Refusing to write/);
});

test("the agent cannot forge the skill scan cache that vouches for skill descriptions", async () => {
  const cache = join(hermesHome, "cache", "skill-scans.json");
  const result = await callTool(registry, "write_file", { path: cache, content: "{}" }, ctx);
  assert.match(String(result.error), /Refusing to write/);
});

test("the agent can neither read nor forge the validated copy of its config", async () => {
  const cache = join(hermesHome, "cache", "config-validated.json");
  mkdirSync(join(hermesHome, "cache"), { recursive: true });
  writeFileSync(cache, JSON.stringify({ text: SECRET }));
  const read = await callTool(registry, "read_file", { path: cache }, ctx);
  assert.match(String(read.error), /Refusing to read/);
  assert.doesNotMatch(JSON.stringify(read), /SECRET/);
  const written = await callTool(registry, "write_file", { path: cache, content: "{}" }, ctx);
  assert.match(String(written.error), /Refusing to write/);
});

test("a content search from a parent directory never returns the agent's secrets", async () => {
  for (const path of [base, hermesHome]) {
    const result = JSON.parse(await searchFilesTool({ pattern: "SECRET", path }, ctx)) as {
      total_count?: number;
      error?: string;
    };
    assert.doesNotMatch(JSON.stringify(result), /sk-live/);
    assert.ok(result.error !== undefined || result.total_count === 0, JSON.stringify(result));
  }
  const listing = JSON.parse(await searchFilesTool({ pattern: "*.json", target: "files", path: base }, ctx)) as {
    files: string[];
  };
  assert.ok(!listing.files.some((file) => file.endsWith("auth.json") || file.endsWith("innocent.json")));
});
