/** Finding a program on PATH, the way a shell would: the first executable regular file of that name. */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The path of `name` on `pathEnv` (an absolute `name` is checked as is), or undefined. */
export function findExecutable(name: string, pathEnv = process.env.PATH ?? ""): string | undefined {
  if (isAbsolute(name)) return isExecutableFile(name) ? name : undefined;
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
