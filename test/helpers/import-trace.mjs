// Preloaded with `node --import`: records the URL of every module the process resolves
// into the file named by IMPORT_TRACE_FILE, one per line.
import { register } from "node:module";

const hooks = `
import { appendFileSync } from "node:fs";
const out = process.env.IMPORT_TRACE_FILE;
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (out) appendFileSync(out, result.url + "\\n");
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
