/** A local HTTP server for hub tests, and builders for tarballs, git repositories and hub indexes. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { tempDir, writeSkill } from "./skills-helpers.js";

export interface HubServer {
  /** `http://127.0.0.1:PORT`. */
  base: string;
  /** Serves `body` at `path` from now on. */
  set(path: string, body: string | Buffer): void;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startHubServer(): Promise<HubServer> {
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(path);
    const body = files.get(path);
    if (!body) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    set: (path, body) => files.set(path, Buffer.isBuffer(body) ? body : Buffer.from(body)),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A `.tar.gz` (made by the real tar) of the skill folder `name` with `files`, as bytes. */
export function skillTarball(name: string, files: Record<string, string>): Buffer {
  const root = tempDir("tar");
  const { "SKILL.md": text, ...rest } = files;
  writeSkill(root, name, { ...(text ? { text } : {}), files: rest });
  const out = join(tempDir("tarout"), `${name}.tgz`);
  execFileSync("tar", ["-czf", out, "-C", root, name]);
  return readFileSync(out);
}

/** A hub index document listing `skills` (name, description, url, sha256). */
export function hubIndex(skills: Array<{ name: string; url: string; sha256: string; description?: string }>): string {
  return JSON.stringify({ skills: skills.map((s) => ({ description: `About ${s.name}.`, ...s })) }, null, 2);
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, stdio: ["ignore", "pipe", "pipe"] })
    .toString()
    .trim();
}

/**
 * A bare git repository holding one commit of `files` (paths relative to the repository root),
 * returned with its path and the commit.
 */
export function bareRepo(files: Record<string, string>): { path: string; commit: string } {
  const work = tempDir("gitwork");
  git(work, "init", "--quiet", "--initial-branch=main");
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(work, rel, ".."), { recursive: true });
    writeFileSync(join(work, rel), content);
  }
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "skills");
  const commit = git(work, "rev-parse", "HEAD");
  const bare = join(tempDir("gitbare"), "skills.git");
  git(work, "clone", "--quiet", "--bare", work, bare);
  return { path: bare, commit };
}

/** Entries of the quarantine folder (it must be empty, or absent, after every install). */
export function quarantineEntries(home: string): string[] {
  try {
    return readdirSync(join(home, "skills", ".quarantine"));
  } catch {
    return [];
  }
}
