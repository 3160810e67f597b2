/** Plugins for tests: the example from docs/plugins.md, verbatim, and small ones written inline. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DOCS = readFileSync(new URL("../../docs/plugins.md", import.meta.url), "utf8");

/** The code block that follows the line introducing `file` (e.g. "`index.js`:"), or the nth block of a language. */
function blockAfter(marker: string, section = "## A complete example"): string {
  const at = DOCS.indexOf(marker, DOCS.indexOf(section));
  if (at < 0) throw new Error(`docs/plugins.md has no "${marker}"`);
  const match = /```\w*\n([\s\S]*?)```/.exec(DOCS.slice(at));
  if (!match) throw new Error(`no code block after "${marker}" in docs/plugins.md`);
  return match[1]!;
}

/** Writes the complete example of docs/plugins.md into `$home/plugins/word-tools/`. */
export function installDocsExample(home: string): string {
  const dir = join(home, "plugins", "word-tools");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.yaml"), blockAfter("`plugin.yaml`:"));
  writeFileSync(join(dir, "index.js"), blockAfter("`index.js`:"));
  return dir;
}

/** The context engine example of docs/plugins.md as a directory plugin. */
export function installDocsContextEngine(home: string): string {
  return writePlugin(home, "keep-recent", blockAfter("```js", "## Context engines"));
}

export function writePlugin(
  home: string,
  name: string,
  code: string,
  manifest = `name: ${name}\nversion: 0.1.0\n`,
): string {
  const dir = join(home, "plugins", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.yaml"), manifest);
  writeFileSync(join(dir, "index.js"), code);
  return dir;
}
