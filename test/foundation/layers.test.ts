import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const copy = mkdtempSync(join(tmpdir(), "hermes-layers-"));
cpSync("src", join(copy, "src"), { recursive: true });
after(() => rmSync(copy, { recursive: true, force: true }));

function checkLayers(root: string) {
  return spawnSync(process.execPath, ["scripts/check-layers.mjs", root], { encoding: "utf8" });
}

test("the layer check passes on the project's own sources", () => {
  const result = checkLayers(".");
  assert.equal(result.status, 0, result.stderr);
});

test("the layer check rejects an upward import and names the file and the import", () => {
  writeFileSync(
    join(copy, "src", "util", "planted.ts"),
    'import { Agent } from "../agent/agent.js";\nexport const x = Agent;\n',
  );
  const result = checkLayers(copy);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /src\/util\/planted\.ts: imports "\.\.\/agent\/agent\.js" \(agent\)/);
});

test("the layer check rejects a sibling import between parts and any import in the tool registry", () => {
  writeFileSync(join(copy, "src", "state", "planted2.ts"), 'export type { Transport } from "../llm/types.js";\n');
  writeFileSync(join(copy, "src", "tools", "registry.ts"), 'import "./other.js";\n', { flag: "a" });
  const result = checkLayers(copy);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    /src\/state\/planted2\.ts: imports "\.\.\/llm\/types\.js" \(llm\), but state may only import util/,
  );
  assert.match(
    result.stderr,
    /src\/tools\/registry\.ts: imports "\.\/other\.js", but the tool registry must import nothing/,
  );
});

test("the runtime layer may not import a surface, and the agent may not import the runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-layers-runtime-"));
  try {
    cpSync("src", join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src", "runtime", "planted.ts"), 'export { EXIT } from "../cli/exit-codes.js";\n');
    writeFileSync(
      join(dir, "src", "agent", "planted.ts"),
      'export type { HermesRuntime } from "../runtime/runtime.js";\n',
    );
    const result = checkLayers(dir);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /src\/runtime\/planted\.ts: imports "\.\.\/cli\/exit-codes\.js" \(cli\)/);
    assert.match(result.stderr, /src\/agent\/planted\.ts: imports "\.\.\/runtime\/runtime\.js" \(runtime\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
