/**
 * One or two lines for the environment layer when Python's tooling on this machine behaves
 * unlike what a model assumes: an interpreter marked externally managed (PEP 668), where
 * `pip install` is refused outside a virtual environment; no pip module; or a `pip` on PATH that
 * installs for another interpreter than `python3`. Nothing when all is ordinary or there is no
 * Python. Only looks at files (no interpreter is started), so it costs a few stat calls, and
 * the answer is reused for 30 s while the environment is the same.
 */
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { findExecutable } from "../util/executable.js";
import { isDirectory, isFile } from "../util/fs-kind.js";
import { shortMemo } from "../util/short-memo.js";

/** How long one probe's answer is reused for the same environment (a server builds many prompts). */
const PROBE_REUSE_MS = 30_000;
const recent = shortMemo<string>(PROBE_REUSE_MS);

export function environmentProbe(env: NodeJS.ProcessEnv = process.env): string {
  const key = [env.VIRTUAL_ENV, env.CONDA_PREFIX, env.PATH, env.HOME].join("\u0000");
  return recent(key, () => probe(env));
}

function probe(env: NodeJS.ProcessEnv): string {
  if (env.VIRTUAL_ENV || env.CONDA_PREFIX) return "";
  const path = env.PATH ?? "";
  const python = findExecutable("python3", path);
  if (!python) return "";
  const real = realPath(python);
  const version = /python(\d+\.\d+)$/.exec(basename(real))?.[1] ?? pythonVersionNear(real);
  if (!version) return "";
  const prefix = dirname(dirname(real));
  const stdlib = join(prefix, "lib", `python${version}`);
  const lines: string[] = [];
  const uv = findExecutable("uv", path) !== undefined;
  if (isFile(join(stdlib, "EXTERNALLY-MANAGED")) && !uv) {
    lines.push(
      `Python ${version} (${python}) is externally managed (PEP 668): \`pip install\` outside a virtual environment is refused. Create one first (\`python3 -m venv .venv\`) or use pipx for tools.`,
    );
  }
  const pipModule = [
    join(stdlib, "site-packages", "pip"),
    join(stdlib, "dist-packages", "pip"),
    join(prefix, "lib", "python3", "dist-packages", "pip"),
    ...(env.HOME ? [join(env.HOME, ".local", "lib", `python${version}`, "site-packages", "pip")] : []),
  ].some(isDirectory);
  if (!pipModule) {
    lines.push(
      `Python ${version} (${python}) has no pip module: \`python3 -m pip\` fails here${uv ? "; use uv" : "; use a virtual environment or the system's packages"}.`,
    );
  } else {
    const pip = findExecutable("pip", path) ?? findExecutable("pip3", path);
    const named = pip ? shebangInterpreter(pip) : undefined;
    const target = named && !named.includes("/") ? findExecutable(named, path) : named;
    if (target && /^python/.test(basename(target)) && realPath(target) !== real) {
      lines.push(`\`pip\` on PATH (${pip}) installs for ${target}, not for python3 (${real}): use \`python3 -m pip\`.`);
    }
  }
  return lines.join("\n");
}

/** The version from a sibling such as python3.12 when python3 is not a link to it. */
function pythonVersionNear(real: string): string | undefined {
  try {
    const versions = readdirSync(join(dirname(dirname(real)), "lib"))
      .map((name) => /^python(\d+\.\d+)$/.exec(name)?.[1])
      .filter((v): v is string => v !== undefined);
    return versions.length === 1 ? versions[0] : undefined;
  } catch {
    return undefined;
  }
}

function shebangInterpreter(script: string): string | undefined {
  try {
    const head = readFileSync(script, { encoding: "latin1" }).slice(0, 200);
    const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(head);
    if (!match) return undefined;
    return basename(match[1]!) === "env" ? match[2] : match[1];
  } catch {
    return undefined;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
