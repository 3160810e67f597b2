// The sandbox's confinement driven directly (bubblewrapArgs, sandboxed, configureSandbox): each
// test runs a real command under bubblewrap and looks at what it could read, write and reach.
// Everything a command may touch lives under this file's own temp directory.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import {
  bubblewrapArgs,
  type ConfineOptions,
  configureSandbox,
  type SandboxPolicy,
  sandboxed,
  secretsToHide,
} from "../../src/tools/sandbox.js";

const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => existsSync(p));
const BWRAP_NOTE = "bubblewrap is not installed here, so the sandbox was not exercised (CI installs it)";

// A private temp dir (the sandbox's writable temp), apart from the rest of this file's world.
const root = mkdtempSync("/tmp/hermes-confine-");
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
process.env.TMPDIR = join(root, "tmp");
mkdirSync(process.env.TMPDIR);
for (const name of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]) {
  delete process.env[name];
}

const servers: Server[] = [];
after(() => {
  configureSandbox(undefined);
  for (const server of servers) server.close();
});

let worlds = 0;
/** A fresh project directory and a decoy directory outside every writable root. */
function world(): { cwd: string; outside: string; extra: string } {
  const base = join(root, `world-${++worlds}`);
  const dirs = { cwd: join(base, "project"), outside: join(base, "outside"), extra: join(base, "extra") };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dirs.outside, "keep.txt"), "precious\n");
  return dirs;
}

function policyOf(overrides: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return {
    mode: "workspace-write",
    bwrap: BWRAP ?? "bwrap",
    writableRoots: [],
    network: true,
    hiddenFiles: [],
    hiddenDirs: [],
    ...overrides,
  };
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): Promise<Result> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** `sh -c script` confined by `policy` in `cwd`, built from bubblewrapArgs alone. */
function confined(policy: SandboxPolicy, cwd: string, script: string, options?: ConfineOptions): Promise<Result> {
  return collect(spawn(BWRAP!, [...bubblewrapArgs(policy, cwd, options), "sh", "-c", script], { stdio: "pipe" }));
}

/** `sh -c script` as sandboxed() would run it under the configured sandbox. */
function throughSandboxed(cwd: string, script: string, options?: ConfineOptions): Promise<Result> {
  const { file, args } = sandboxed("sh", ["-c", script], cwd, options);
  return collect(spawn(file, args, { cwd, stdio: "pipe" }));
}

async function httpServer(): Promise<number> {
  const server = createServer((_req, res) => res.end("reachable")).listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return (server.address() as { port: number }).port;
}

const probe = (port: number) =>
  `bash -c '(exec 3<>/dev/tcp/127.0.0.1/${port} && echo reachable) 2>/dev/null || echo unreachable'`;

test("workspace-write: the working directory, the temp dir and extra roots are writable, nothing else", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  const missing = join(w.outside, "no-such-root");
  const fileRoot = join(w.outside, "keep.txt");
  // A relative extra root counts from the agent's working directory.
  const policy = policyOf({ writableRoots: [relative(process.cwd(), w.extra), missing, fileRoot] });
  const result = await confined(
    policy,
    w.cwd,
    `pwd; echo a > in-cwd && echo b > "$TMPDIR/in-tmp" && echo c > ${w.extra}/in-extra && echo written; ` +
      `echo d > ${join(w.outside, "new.txt")}; echo e > ${fileRoot}; rm -f ${join(w.outside, "keep.txt")}; echo end`,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `${w.cwd}\nwritten\nend\n`);
  assert.equal(readFileSync(join(w.cwd, "in-cwd"), "utf8"), "a\n");
  assert.equal(readFileSync(join(process.env.TMPDIR!, "in-tmp"), "utf8"), "b\n");
  assert.equal(readFileSync(join(w.extra, "in-extra"), "utf8"), "c\n");
  assert.match(result.stderr, /Read-only file system/);
  assert.equal(existsSync(join(w.outside, "new.txt")), false);
  assert.equal(readFileSync(fileRoot, "utf8"), "precious\n", "a writable root that is a file is not bound");
});

test("read-only: even the working directory is read-only; temp and extra roots stay writable", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  const result = await confined(
    policyOf({ mode: "read-only", writableRoots: [w.extra] }),
    w.cwd,
    `echo b > "$TMPDIR/ro-tmp" && echo c > ${w.extra}/in-extra && echo written; echo a > in-cwd || echo refused`,
  );
  assert.equal(result.stdout, "written\nrefused\n", result.stderr);
  assert.match(result.stderr, /Read-only file system/);
  assert.equal(existsSync(join(w.cwd, "in-cwd")), false);
  assert.equal(readFileSync(join(w.extra, "in-extra"), "utf8"), "c\n");
});

test("hidden directories look empty and hidden files read empty, even inside a writable root", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  const keys = join(w.outside, "keys");
  mkdirSync(keys);
  writeFileSync(join(keys, "id_ed25519"), "PRIVATE KEY\n");
  const secret = join(w.outside, "auth.json");
  writeFileSync(secret, "sk-outside\n");
  const inProject = join(w.cwd, "token.txt");
  writeFileSync(inProject, "sk-in-project\n");
  const policy = policyOf({
    hiddenDirs: [keys, join(w.outside, "no-such-dir"), secret],
    hiddenFiles: [secret, inProject, join(w.outside, "no-such-file"), keys],
  });
  const result = await confined(
    policy,
    w.cwd,
    `ls -A ${keys}; cat ${secret} ${inProject}; echo overwritten > ${inProject}; echo end`,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "end\n");
  assert.equal(readFileSync(inProject, "utf8"), "sk-in-project\n", "a hidden file cannot be written through");
  assert.deepEqual(readdirSync(keys), ["id_ed25519"]);
});

test("the agent's credentials and settings and the user's key directories are hidden", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  const home = join(w.outside, "home");
  const hermesHome = join(home, ".hermes");
  mkdirSync(hermesHome, { recursive: true });
  const secretFiles = [".env", "auth.json", "state.db", "config.yaml"];
  for (const name of secretFiles) writeFileSync(join(hermesHome, name), `secret in ${name}\n`);
  writeFileSync(join(hermesHome, "SOUL.md"), "visible soul\n");
  const keyDirs = [".ssh", ".aws", ".gnupg", join(".config", "gh")];
  for (const dir of keyDirs) {
    mkdirSync(join(home, dir), { recursive: true });
    writeFileSync(join(home, dir, "key"), `key in ${dir}\n`);
  }
  const cats = [...secretFiles.map((name) => join(hermesHome, name)), ...keyDirs.map((dir) => join(home, dir, "key"))];
  const result = await confined(
    policyOf(secretsToHide(hermesHome, home)),
    w.cwd,
    `cat ${cats.join(" ")} 2>/dev/null; cat ${join(hermesHome, "SOUL.md")}`,
  );
  assert.equal(result.stdout, "visible soul\n", result.stderr);
});

test("network: false cuts the network unless the caller keeps it; network: true keeps it", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const port = await httpServer();
  const w = world();
  const cut = policyOf({ network: false });
  const open = policyOf({ network: true });
  assert.equal((await confined(cut, w.cwd, probe(port))).stdout, "unreachable\n");
  assert.equal((await confined(cut, w.cwd, probe(port), { network: true })).stdout, "reachable\n");
  assert.equal((await confined(open, w.cwd, probe(port))).stdout, "reachable\n");
  assert.equal((await confined(open, w.cwd, probe(port), { network: false })).stdout, "unreachable\n");
});

/**
 * Starts the confined command from a go-between process, waits until it runs, then kills the
 * go-between. The command then waits for a line on a FIFO; its stdout (shared with the
 * go-between) is what the test watches.
 */
async function orphaned(
  options: ConfineOptions,
): Promise<{ stdout: () => string; ended: Promise<void>; ping(): Promise<void> }> {
  const w = world();
  const fifo = join(w.cwd, "fifo");
  const made = await collect(spawn("mkfifo", [fifo]));
  assert.equal(made.code, 0, made.stderr);
  // The FIFO is opened (read-write, so without waiting for a writer) before "ready": a line
  // written after that cannot be lost.
  const script = `exec 3<> ${fifo}; echo ready; read line <&3; echo "alive:$line"`;
  const args = [...bubblewrapArgs(policyOf(), w.cwd, options), "sh", "-c", script];
  const goBetween = spawn(
    process.execPath,
    [
      "-e",
      'require("node:child_process").spawn(process.argv[1], JSON.parse(process.argv[2]), { stdio: "inherit" })',
      BWRAP!,
      JSON.stringify(args),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  const ended = new Promise<void>((resolve) => goBetween.stdout.on("end", resolve));
  await new Promise<void>((resolve) => {
    goBetween.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("ready\n")) resolve();
    });
    // A sandbox that cannot start ends the output without "ready", failing the test below.
    void ended.then(resolve);
  });
  assert.equal(stdout, "ready\n", "the confined command started");
  const exited = new Promise((resolve) => goBetween.once("exit", resolve));
  goBetween.kill("SIGKILL");
  await exited;
  return {
    stdout: () => stdout,
    ended,
    ping: async () => {
      // Read-write, so the open does not wait for a reader: a command that died reads nothing.
      const writer = await open(fifo, "r+");
      await writer.write("ping\n");
      await writer.close();
    },
  };
}

test("a confined command dies with the process that started it", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const run = await orphaned({});
  await run.ended;
  assert.equal(run.stdout(), "ready\n");
});

test("with outliveParent, a confined command keeps running after the process that started it", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const run = await orphaned({ outliveParent: true });
  await run.ping();
  await run.ended;
  assert.equal(run.stdout(), "ready\nalive:ping\n");
});

test("sandboxed() runs a command unchanged with no sandbox, and confined once one is configured", async (t) => {
  configureSandbox(undefined);
  assert.deepEqual(sandboxed("sh", ["-c", "true"], "/"), { file: "sh", args: ["-c", "true"] });
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  configureSandbox(policyOf({ mode: "read-only" }));
  try {
    const result = await throughSandboxed(w.cwd, `pwd; echo x > ${join(w.outside, "new.txt")} || echo refused`);
    assert.equal(result.stdout, `${w.cwd}\nrefused\n`);
    assert.equal(existsSync(join(w.outside, "new.txt")), false);
  } finally {
    configureSandbox(undefined);
  }
});

test("allowed hosts: commands go through the relay and proxy, unless the caller keeps the network", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const port = await httpServer();
  const w = world();
  configureSandbox(policyOf({ network: false, allowedHosts: ["localhost"] }));
  try {
    const viaProxy = await throughSandboxed(
      w.cwd,
      `echo "$http_proxy $HTTPS_PROXY"; curl -sS http://localhost:${port}/; echo; ` +
        `curl -sS -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:${port}/; ${probe(port)}`,
    );
    assert.equal(
      viaProxy.stdout,
      "http://127.0.0.1:3128 http://127.0.0.1:3128\nreachable\n403\nunreachable\n",
      viaProxy.stderr,
    );
    const kept = await throughSandboxed(w.cwd, `echo "proxy:$http_proxy"; ${probe(port)}`, { network: true });
    assert.equal(kept.stdout, "proxy:\nreachable\n", kept.stderr);
  } finally {
    configureSandbox(undefined);
  }
});

test("allowed hosts with the network on start no proxy", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const port = await httpServer();
  const w = world();
  configureSandbox(policyOf({ network: true, allowedHosts: ["localhost"] }));
  try {
    const result = await throughSandboxed(w.cwd, `echo "proxy:$http_proxy"; ${probe(port)}`);
    assert.equal(result.stdout, `proxy:\nreachable\n`, result.stderr);
  } finally {
    configureSandbox(undefined);
  }
});

test("configuring the sandbox again stops the previous proxy", async (t) => {
  if (!BWRAP) return t.diagnostic(BWRAP_NOTE);
  const w = world();
  configureSandbox(policyOf({ network: false, allowedHosts: ["localhost"] }));
  const { args } = sandboxed("true", [], w.cwd);
  const socketPath = args[args.indexOf("-e") + 2]!;
  assert.ok(existsSync(socketPath), "the relay is pointed at the running proxy's socket");
  configureSandbox(policyOf({ network: false }));
  assert.equal(existsSync(socketPath), false, "the previous proxy's socket is gone");
  try {
    const result = await throughSandboxed(w.cwd, 'echo "proxy:$http_proxy"');
    assert.equal(result.stdout, "proxy:\n", "no relay in front of the command without allowed hosts");
  } finally {
    configureSandbox(undefined);
  }
});
