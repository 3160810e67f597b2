// Preloaded with `node --import`: records the URL of every module the process resolves
// into the file named by IMPORT_TRACE_FILE, one per line, and at exit the CommonJS modules
// loaded with require() (which the resolve hook does not see), as file: URLs, and Node's own
// modules the process loaded, as `builtin:<name>` lines.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const hooks = `
import { appendFileSync } from "node:fs";
const out = process.env.IMPORT_TRACE_FILE;
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (out) appendFileSync(out, result.url + "\\n");
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const out = process.env.IMPORT_TRACE_FILE;
const require = createRequire(import.meta.url);
process.on("exit", () => {
  if (!out) return;
  const required = Object.keys(require.cache).filter((id) => id.startsWith("/"));
  if (required.length > 0) appendFileSync(out, `${required.map((id) => pathToFileURL(id).href).join("\n")}\n`);
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith("NativeModule "));
  appendFileSync(out, `${builtins.map((entry) => `builtin:${entry.slice("NativeModule ".length)}`).join("\n")}\n`);
});
