import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import {
  type CheckpointStoreOptions,
  CheckpointTracker,
  openCheckpointStore,
  projectRoot,
  pruneAllCheckpoints,
  shadowDirFor,
} from "../../src/tools/checkpoints/index.js";

const DAY = 86_400_000;
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hermes-checkpoints-${label}-`));
  temps.push(dir);
  return dir;
}

function fakeClock(start = Date.UTC(2026, 0, 10, 12)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(ms: number) {
      now = ms;
    },
  };
}

function put(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function get(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

async function setup(options: Partial<CheckpointStoreOptions> = {}) {
  const home = tempDir("home");
  const project = tempDir("project");
  const clock = fakeClock();
  const store = await openCheckpointStore({ home, projectDir: project, now: clock.now, ...options });
  return { home, project, clock, store };
}

/** git run on the project's own repository, outside any checkpoint environment. */
function projectGit(dir: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", ...args], {
    cwd: dir,
    env: { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    encoding: "utf8",
  });
}

/** Every file under `dir` with its content hash, size and mtime. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const info = lstatSync(path);
        const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
        out[path.slice(dir.length)] = `${hash} ${info.size} ${info.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

function dirSize(dir: string): number {
  return Object.values(fingerprint(dir)).reduce((sum, line) => sum + Number(line.split(" ")[1]), 0);
}

describe("checkpoint store", () => {
  test("restores exact bytes (binary, CRLF, no trailing newline, mode, symlink), re-creates a deleted file and removes a new one", async () => {
    const { project, store } = await setup();
    const binary = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    put(project, "bin/data.bin", binary);
    put(project, "crlf.txt", "one\r\ntwo\r\n");
    put(project, "lf.txt", "no newline at end");
    // The project's attributes would convert line endings; checkpoints keep bytes as they are.
    put(project, ".gitattributes", "*.txt text eol=crlf\n");
    put(project, "run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(join(project, "run.sh"), 0o755);
    symlinkSync("lf.txt", join(project, "link"));
    put(project, "doomed/gone.txt", "will be deleted\n");
    const first = await store.snapshot({ reason: "before edit", turn: 1, sessionId: "s1" });
    assert.ok(first);
    assert.equal(first.totalFiles, 7);

    put(project, "bin/data.bin", randomBytes(64));
    put(project, "crlf.txt", "changed\n");
    put(project, "lf.txt", "changed\n");
    chmodSync(join(project, "run.sh"), 0o644);
    rmSync(join(project, "link"));
    rmSync(join(project, "doomed"), { recursive: true });
    put(project, "fresh/new.txt", "created after the checkpoint\n");

    const result = await store.restore(first.id);
    assert.deepEqual(readFileSync(join(project, "bin/data.bin")), binary);
    assert.equal(get(project, "crlf.txt"), "one\r\ntwo\r\n");
    assert.equal(get(project, "lf.txt"), "no newline at end");
    assert.equal(statSync(join(project, "run.sh")).mode & 0o777, 0o755);
    assert.equal(readlinkSync(join(project, "link")), "lf.txt");
    assert.equal(get(project, "doomed/gone.txt"), "will be deleted\n");
    assert.equal(existsSync(join(project, "fresh")), false, "the new file and its now-empty directory are gone");
    assert.deepEqual(result.removedFiles, ["fresh/new.txt"]);
    assert.deepEqual(
      [...result.restoredFiles].sort(),
      ["bin/data.bin", "crlf.txt", "doomed/gone.txt", "lf.txt", "link", "run.sh"].sort(),
    );
    assert.deepEqual(result.keptHandEdits, []);
  });

  test("restores one file only and leaves every other change alone", async () => {
    const { project, store } = await setup();
    put(project, "a.txt", "a1\n");
    put(project, "b.txt", "b1\n");
    put(project, "gone.txt", "g1\n");
    const cp = await store.snapshot({ reason: "start" });
    assert.ok(cp);
    put(project, "a.txt", "a2\n");
    put(project, "b.txt", "b2\n");
    rmSync(join(project, "gone.txt"));

    const one = await store.restore(cp.id, { file: "a.txt" });
    assert.deepEqual(one.restoredFiles, ["a.txt"]);
    assert.equal(get(project, "a.txt"), "a1\n");
    assert.equal(get(project, "b.txt"), "b2\n");
    assert.equal(existsSync(join(project, "gone.txt")), false);

    const recreated = await store.restore(cp.id, { file: join(project, "gone.txt") });
    assert.deepEqual(recreated.restoredFiles, ["gone.txt"]);
    assert.equal(get(project, "gone.txt"), "g1\n");
    assert.equal(get(project, "b.txt"), "b2\n");

    await assert.rejects(store.restore(cp.id, { file: "/somewhere/else.txt" }), /not inside the project/);
    await assert.rejects(store.restore(cp.id, { file: "never-existed.txt" }), /is not in checkpoint/);
  });

  test("works in a directory that is not a git repository and creates no .git there", async () => {
    const { project, store, home } = await setup();
    put(project, "notes.md", "# notes\n");
    const cp = await store.snapshot({ reason: "plain dir" });
    assert.ok(cp);
    put(project, "notes.md", "overwritten\n");
    await store.restore(cp.id);
    assert.equal(get(project, "notes.md"), "# notes\n");
    assert.equal(existsSync(join(project, ".git")), false);
    const shadow = shadowDirFor(home, project);
    assert.equal(store.shadowDir, shadow);
    assert.match(shadow, /checkpoints[/\\][0-9a-f]{16}$/);
    assert.deepEqual(JSON.parse(readFileSync(join(shadow, "project.json"), "utf8")).projectDir, store.projectDir);
  });

  test("never touches the project's own .git: HEAD, index, refs and objects are byte-for-byte and mtime unchanged", async () => {
    const { project, store } = await setup();
    put(project, "src/main.ts", "export const a = 1;\n");
    projectGit(project, "init", "-q", "-b", "main");
    projectGit(project, "add", "-A");
    projectGit(project, "commit", "-q", "-m", "initial");
    put(project, "src/main.ts", "export const a = 2;\n");
    const before = fingerprint(join(project, ".git"));

    const cp = await store.snapshot({ reason: "with a repo" });
    assert.ok(cp);
    assert.equal(cp.totalFiles, 1, "nothing under .git is snapshotted");
    put(project, "src/main.ts", "export const a = 3;\n");
    put(project, "src/extra.ts", "x\n");
    assert.ok((await store.changedFiles(cp.id)).every((file) => !file.path.startsWith(".git")));
    await store.diff(cp.id);
    await store.restore(cp.id);
    await store.markTurnEnd();
    await store.prune();

    assert.equal(get(project, "src/main.ts"), "export const a = 2;\n");
    assert.deepEqual(fingerprint(join(project, ".git")), before);
    assert.match(projectGit(project, "status", "--porcelain"), /^ M src\/main\.ts\n$/);
  });

  test("never snapshots .gitignore'd files and restore never removes or rewrites them", async () => {
    const { project, store } = await setup();
    put(project, ".gitignore", "*.log\nbuild/\n");
    put(project, "src.txt", "source\n");
    put(project, "app.log", "log 1\n");
    put(project, "build/out.js", "built\n");
    const cp = await store.snapshot({ reason: "ignored files" });
    assert.ok(cp);
    assert.equal(cp.totalFiles, 2);

    put(project, "app.log", "log 2\n");
    put(project, "build/later.js", "built later\n");
    rmSync(join(project, "src.txt"));
    const result = await store.restore(cp.id);
    assert.deepEqual(result.restoredFiles, ["src.txt"]);
    assert.deepEqual(result.removedFiles, []);
    assert.equal(get(project, "app.log"), "log 2\n");
    assert.equal(get(project, "build/later.js"), "built later\n");
    assert.equal(get(project, "build/out.js"), "built\n");
  });

  test("a file that becomes ignored leaves the next snapshot and is not removed by a restore", async () => {
    const { project, store } = await setup();
    put(project, "keep.txt", "k\n");
    const cp = await store.snapshot({ reason: "before secrets" });
    assert.ok(cp);
    put(project, "secret.env", "TOKEN=1\n");
    const withSecret = await store.snapshot({ reason: "secret tracked" });
    assert.equal(withSecret?.totalFiles, 2);
    put(project, ".gitignore", "*.env\n");
    const ignored = await store.snapshot({ reason: "secret ignored" });
    assert.equal(ignored?.totalFiles, 2, "keep.txt and .gitignore, not secret.env");
    const result = await store.restore(cp.id);
    assert.equal(get(project, "secret.env"), "TOKEN=1\n");
    assert.deepEqual(result.removedFiles, [".gitignore"]);
  });

  test("skips files over maxFileSizeMb, reports them, and takes them back once they shrink", async () => {
    const { project, store } = await setup({ maxFileSizeMb: 0.001 });
    put(project, "big.txt", "x".repeat(2000));
    put(project, "small.txt", "s\n");
    const first = await store.snapshot({ reason: "big skipped" });
    assert.ok(first);
    assert.deepEqual(first.skipped, ["big.txt"]);
    assert.equal(first.totalFiles, 1);
    assert.deepEqual((await store.list())[0]!.skipped, ["big.txt"]);

    put(project, "big.txt", "shrunk\n");
    const shrunk = await store.snapshot({ reason: "big shrank" });
    assert.ok(shrunk);
    assert.deepEqual(shrunk.skipped, []);
    assert.equal(shrunk.totalFiles, 2);

    put(project, "big.txt", "y".repeat(3000));
    const grown = await store.snapshot({ reason: "big grew" });
    assert.ok(grown);
    assert.deepEqual(grown.skipped, ["big.txt"]);
    assert.equal(grown.filesChanged, 1);
    assert.equal(grown.totalFiles, 1);

    // The current big version cannot go into the safety checkpoint, so it is not overwritten.
    const kept = await store.restore(shrunk.id);
    assert.deepEqual(kept.keptUnsaved, ["big.txt"]);
    assert.equal(get(project, "big.txt"), "y".repeat(3000));
    const forced = await store.restore(shrunk.id, { force: true });
    assert.deepEqual(forced.restoredFiles, ["big.txt"]);
    assert.equal(get(project, "big.txt"), "shrunk\n");
  });

  test("returns null and commits nothing when nothing changed since the last snapshot", async () => {
    const { project, store, clock } = await setup();
    put(project, "a.txt", "a\n");
    assert.ok(await store.snapshot({ reason: "first" }));
    clock.advance(1000);
    assert.equal(await store.snapshot({ reason: "second" }), null);
    // Touching a file without changing it is no change either.
    put(project, "a.txt", "a\n");
    assert.equal(await store.snapshot({ reason: "third" }), null);
    assert.equal((await store.list()).length, 1);
    rmSync(join(project, "a.txt"));
    const deletion = await store.snapshot({ reason: "deleted" });
    assert.equal(deletion?.filesChanged, 1);
    assert.equal(deletion?.totalFiles, 0);
  });

  test("lists newest first (1 = newest) with reason, turn, session, counts and the clock's time", async () => {
    const { project, store, clock } = await setup();
    put(project, "a.txt", "1\n");
    put(project, "b.txt", "1\n");
    const one = await store.snapshot({ reason: "turn one", turn: 1, sessionId: "s" });
    clock.advance(60_000);
    put(project, "a.txt", "2\n");
    const two = await store.snapshot({ reason: "turn two\nwith a newline", turn: 2, sessionId: "s" });
    assert.ok(one && two);
    const list = await store.list();
    assert.deepEqual(list, [two, one]);
    assert.deepEqual(two, {
      id: two.id,
      createdAt: Date.UTC(2026, 0, 10, 12) + 60_000,
      reason: "turn two\nwith a newline",
      turn: 2,
      sessionId: "s",
      filesChanged: 1,
      totalFiles: 2,
      skipped: [],
    });
    assert.match(two.id, /^[0-9a-f]{12}$/);
    assert.deepEqual(await store.get(1), two);
    assert.deepEqual(await store.get(2), one);
    assert.deepEqual(await store.get("2"), one, "a short number string is a position too");
    assert.deepEqual(await store.get(one.id.slice(0, 6)), one);
    await assert.rejects(store.get(3), /No checkpoint number 3/);
    await assert.rejects(store.get("zzzz"), /No checkpoint "zzzz"/);
    await assert.rejects(store.get("HEAD~1"), /No checkpoint/);
  });

  test("diff and changedFiles show what restoring would change, without changing anything", async () => {
    const { project, store } = await setup();
    put(project, "a.txt", "one\n");
    put(project, "old.txt", "old\n");
    const cp = await store.snapshot({ reason: "base" });
    assert.ok(cp);
    put(project, "a.txt", "two\n");
    put(project, "new.txt", "new\n");
    rmSync(join(project, "old.txt"));
    const diff = await store.diff(cp.id);
    assert.match(diff, /--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1 \+1 @@\n-two\n\+one\n/);
    assert.match(diff, /deleted file mode 100644\n[^\n]*\n--- a\/new\.txt/);
    assert.match(diff, /new file mode 100644\n[^\n]*\n--- \/dev\/null\n\+\+\+ b\/old\.txt/);
    assert.deepEqual(await store.changedFiles(1), [
      { path: "a.txt", change: "modify" },
      { path: "new.txt", change: "remove" },
      { path: "old.txt", change: "create" },
    ]);
    assert.equal(get(project, "a.txt"), "two\n");
    assert.equal((await store.list()).length, 1);
  });

  test("keeps files edited by hand after the agent's turn unless force is given", async () => {
    const { project, store } = await setup();
    put(project, "agent.txt", "v1\n");
    put(project, "user.txt", "v1\n");
    const cp = await store.snapshot({ reason: "before turn", turn: 1 });
    assert.ok(cp);
    put(project, "agent.txt", "agent v2\n");
    put(project, "user.txt", "agent v2\n");
    await store.markTurnEnd();
    put(project, "user.txt", "typed by hand\n");
    put(project, "user-new.txt", "created by hand\n");

    const result = await store.restore(cp.id);
    assert.equal(get(project, "agent.txt"), "v1\n");
    assert.equal(get(project, "user.txt"), "typed by hand\n");
    assert.equal(get(project, "user-new.txt"), "created by hand\n");
    assert.deepEqual([...result.keptHandEdits].sort(), ["user-new.txt", "user.txt"]);
    assert.deepEqual(result.restoredFiles, ["agent.txt"]);

    const forced = await store.restore(cp.id, { force: true });
    assert.equal(get(project, "user.txt"), "v1\n");
    assert.equal(existsSync(join(project, "user-new.txt")), false);
    assert.deepEqual(forced.keptHandEdits, []);
  });

  test("without an after-turn mark nothing counts as a hand edit", async () => {
    const { project, store } = await setup();
    put(project, "f.txt", "1\n");
    const cp = await store.snapshot({ reason: "base" });
    assert.ok(cp);
    put(project, "f.txt", "2\n");
    const result = await store.restore(cp.id);
    assert.deepEqual(result.keptHandEdits, []);
    assert.equal(get(project, "f.txt"), "1\n");
  });

  test("the safety checkpoint taken before a restore lets the restore be undone", async () => {
    const { project, store } = await setup();
    put(project, "a.txt", "a1\n");
    put(project, "b.txt", "b1\n");
    const cp = await store.snapshot({ reason: "base" });
    assert.ok(cp);
    put(project, "a.txt", "a2\n");
    rmSync(join(project, "b.txt"));
    put(project, "c.txt", "c2\n");
    await store.markTurnEnd();

    const restored = await store.restore(cp.id);
    assert.ok(restored.safetyCheckpoint);
    assert.equal(restored.safetyCheckpoint.reason, "before restore");
    assert.deepEqual(await store.get(1), restored.safetyCheckpoint);
    assert.equal(get(project, "a.txt"), "a1\n");

    const undone = await store.restore(restored.safetyCheckpoint.id);
    assert.deepEqual(undone.keptHandEdits, [], "files the restore wrote are not hand edits");
    assert.equal(get(project, "a.txt"), "a2\n");
    assert.equal(get(project, "c.txt"), "c2\n");
    assert.equal(existsSync(join(project, "b.txt")), false);

    // Restoring the state one already has takes no safety checkpoint and changes nothing.
    assert.ok(await store.snapshot({ reason: "as it is now" }));
    const again = await store.restore(1);
    assert.equal(again.safetyCheckpoint, null);
    assert.deepEqual([again.restoredFiles, again.removedFiles], [[], []]);
  });

  test("snapshots and restores odd names (spaces, quotes, newline, non-ASCII) and type changes", async () => {
    const { project, store } = await setup();
    const names = ["with space.txt", '"quoted".txt', "new\nline.txt", "ünï cödé/файл.txt", "back\\slash.txt"];
    for (const name of names) put(project, name, `first ${name}`);
    put(project, "becomes-link", "regular file\n");
    put(project, "becomes-dir", "file that a directory replaces\n");
    put(project, "tool.sh", "#!/bin/sh\n");
    const first = await store.snapshot({ reason: "odd names" });
    assert.equal(first?.totalFiles, names.length + 3);
    for (const name of names) put(project, name, `second ${name}`);
    rmSync(join(project, "becomes-link"));
    symlinkSync("tool.sh", join(project, "becomes-link"));
    rmSync(join(project, "becomes-dir"));
    put(project, "becomes-dir/inner.txt", "inside\n");
    chmodSync(join(project, "tool.sh"), 0o755);
    const second = await store.snapshot({ reason: "changed" });
    assert.ok(first && second);
    assert.equal(second.filesChanged, names.length + 4);
    assert.equal(second.totalFiles, names.length + 3);

    await store.restore(first.id);
    for (const name of names) assert.equal(get(project, name), `first ${name}`);
    assert.equal(get(project, "becomes-link"), "regular file\n");
    assert.equal(lstatSync(join(project, "becomes-link")).isSymbolicLink(), false);
    assert.equal(get(project, "becomes-dir"), "file that a directory replaces\n");
    assert.equal(statSync(join(project, "tool.sh")).mode & 0o111, 0);
    await store.restore(second.id);
    for (const name of names) assert.equal(get(project, name), `second ${name}`);
    assert.equal(readlinkSync(join(project, "becomes-link")), "tool.sh");
    assert.equal(get(project, "becomes-dir/inner.txt"), "inside\n");
    assert.equal(statSync(join(project, "tool.sh")).mode & 0o100, 0o100);
  });

  test("a snapshot of many changed files at once is exact", async () => {
    const { project, store } = await setup();
    for (let i = 0; i < 600; i++) put(project, `many/f${i}.txt`, `${i}\n`);
    const first = await store.snapshot({ reason: "many" });
    assert.equal(first?.totalFiles, 600);
    for (let i = 0; i < 600; i += 1) put(project, `many/f${i}.txt`, `${i} changed\n`);
    rmSync(join(project, "many/f0.txt"));
    const second = await store.snapshot({ reason: "all changed" });
    assert.deepEqual([second?.filesChanged, second?.totalFiles], [600, 599]);
    assert.ok(first);
    await store.restore(first.id);
    assert.equal(get(project, "many/f0.txt"), "0\n");
    assert.equal(get(project, "many/f599.txt"), "599\n");
  });

  test("a shadow index out of step with the newest checkpoint (an interrupted snapshot) still gives exact snapshots", async () => {
    const { project, store } = await setup();
    put(project, "a.txt", "a\n");
    put(project, "b.txt", "b\n");
    assert.ok(await store.snapshot({ reason: "base" }));
    // What a snapshot killed between staging and committing leaves behind.
    execFileSync("git", ["update-index", "--force-remove", "a.txt"], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        GIT_DIR: store.shadowDir,
        GIT_WORK_TREE: project,
        GIT_INDEX_FILE: join(store.shadowDir, "index"),
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
    });
    assert.equal(await store.snapshot({ reason: "nothing changed" }), null);
    put(project, "b.txt", "b2\n");
    const next = await store.snapshot({ reason: "b changed" });
    assert.deepEqual([next?.filesChanged, next?.totalFiles], [1, 2]);
    put(project, "a.txt", "gone soon\n");
    assert.ok(next);
    await store.restore(next.id);
    assert.equal(get(project, "a.txt"), "a\n");
  });

  test("leaves nested repositories out of snapshots and alone on restore", async () => {
    const { project, store } = await setup();
    put(project, "top.txt", "top\n");
    put(project, "vendor/lib/code.txt", "nested\n");
    projectGit(join(project, "vendor/lib"), "init", "-q");
    const cp = await store.snapshot({ reason: "with a nested repo" });
    assert.equal(cp?.totalFiles, 1);
    put(project, "vendor/lib/code.txt", "changed\n");
    assert.ok(cp);
    const result = await store.restore(cp.id);
    assert.deepEqual([result.restoredFiles, result.removedFiles], [[], []]);
    assert.equal(get(project, "vendor/lib/code.txt"), "changed\n");
  });

  test("concurrent snapshots of one project are taken one after the other", async () => {
    const { project, store, home } = await setup();
    put(project, "a.txt", "a\n");
    const other = await openCheckpointStore({ home, projectDir: project });
    const results = await Promise.all([store.snapshot({ reason: "one" }), other.snapshot({ reason: "two" })]);
    assert.equal(results.filter((result) => result !== null).length, 1);
    assert.equal((await store.list()).length, 1);
  });

  test("rejects bad options and a project directory that does not exist", async () => {
    const home = tempDir("home");
    await assert.rejects(openCheckpointStore({ home, projectDir: join(home, "missing") }), /not a directory/);
    await assert.rejects(openCheckpointStore({ home, projectDir: home, maxSnapshots: 0 }), RangeError);
    await assert.rejects(openCheckpointStore({ home, projectDir: home, maxFileSizeMb: -1 }), RangeError);
    const store = await openCheckpointStore({ home, projectDir: home });
    assert.deepEqual(await store.list(), [], "listing a project without checkpoints creates nothing");
    assert.equal(existsSync(join(home, "checkpoints")), false);
  });
});

describe("checkpoint pruning", () => {
  test("keeps only the newest maxSnapshots and they still restore", async () => {
    const { project, store, clock } = await setup({ maxSnapshots: 3 });
    for (let i = 1; i <= 5; i++) {
      put(project, "n.txt", `${i}\n`);
      clock.advance(1000);
      assert.ok(await store.snapshot({ reason: `snapshot ${i}`, turn: i }));
    }
    const before = await store.list();
    assert.deepEqual(await store.prune(), { removedSnapshots: 2, removedProjects: 0 });
    const after = await store.list();
    assert.deepEqual(
      after.map((cp) => cp.reason),
      ["snapshot 5", "snapshot 4", "snapshot 3"],
    );
    assert.deepEqual(
      after.map((cp) => [cp.createdAt, cp.turn]),
      before.slice(0, 3).map((cp) => [cp.createdAt, cp.turn]),
    );
    put(project, "n.txt", "edited\n");
    await store.restore(3);
    assert.equal(get(project, "n.txt"), "3\n");
    assert.deepEqual(await store.prune(), { removedSnapshots: 1, removedProjects: 0 }, "the safety checkpoint made 4");
  });

  test("drops snapshots older than retentionDays by the injected clock", async () => {
    const { project, store, clock } = await setup({ retentionDays: 7 });
    const start = clock.now();
    for (const [i, day] of [0, 1, 8].entries()) {
      clock.set(start + day * DAY);
      put(project, "n.txt", `${i}\n`);
      assert.ok(await store.snapshot({ reason: `day ${day}` }));
    }
    assert.deepEqual(await store.prune({ now: start + 7.5 * DAY }), { removedSnapshots: 1, removedProjects: 0 });
    assert.deepEqual(
      (await store.list()).map((cp) => cp.reason),
      ["day 8", "day 1"],
    );
    clock.set(start + 30 * DAY);
    assert.deepEqual(await store.prune(), { removedSnapshots: 2, removedProjects: 0 });
    assert.deepEqual(await store.list(), []);
    put(project, "n.txt", "after\n");
    assert.equal((await store.snapshot({ reason: "fresh start" }))?.filesChanged, 1);
  });

  test("drops the oldest snapshots until the shadow repository is under maxTotalSizeMb, keeping the newest", async () => {
    const { project, store, clock } = await setup({ maxTotalSizeMb: 0.1 });
    for (let i = 1; i <= 4; i++) {
      put(project, "blob.bin", randomBytes(40_000));
      clock.advance(1000);
      assert.ok(await store.snapshot({ reason: `blob ${i}` }));
    }
    const { removedSnapshots } = await store.prune();
    const left = await store.list();
    assert.ok(removedSnapshots >= 2, `removed ${removedSnapshots}`);
    assert.equal(left.length, 4 - removedSnapshots);
    assert.equal(left[0]!.reason, "blob 4");
    assert.ok(dirSize(store.shadowDir) <= 0.1 * 1024 * 1024);
  });

  test("pruneAllCheckpoints removes the shadow repository of a deleted project, and of one whose snapshots all expired", async () => {
    const home = tempDir("home");
    const clock = fakeClock();
    const open = async (label: string) => {
      const project = tempDir(label);
      put(project, "f.txt", label);
      const store = await openCheckpointStore({ home, projectDir: project, now: clock.now });
      assert.ok(await store.snapshot({ reason: label }));
      return { project, store };
    };
    const live = await open("live");
    const orphan = await open("orphan");
    clock.advance(-10 * DAY);
    const stale = await open("stale");
    clock.advance(10 * DAY);
    rmSync(orphan.project, { recursive: true });

    const kept = await pruneAllCheckpoints({ home, now: clock.now(), retentionDays: 30 });
    assert.deepEqual(kept, { removedSnapshots: 0, removedProjects: 0, errors: [] });
    assert.ok(existsSync(orphan.store.shadowDir), "orphans stay unless deleteOrphans");

    const swept = await pruneAllCheckpoints({ home, now: clock.now(), retentionDays: 7, deleteOrphans: true });
    assert.deepEqual(swept, { removedSnapshots: 1, removedProjects: 2, errors: [] });
    assert.equal(existsSync(orphan.store.shadowDir), false);
    assert.equal(existsSync(stale.store.shadowDir), false);
    assert.equal((await live.store.list()).length, 1);
    mkdirSync(join(home, "checkpoints", "not-a-shadow-repo"));
    await pruneAllCheckpoints({ home, now: clock.now(), deleteOrphans: true });
    assert.ok(existsSync(join(home, "checkpoints", "not-a-shadow-repo")), "unknown directories are left alone");
  });
});

describe("checkpoint tracker", () => {
  test("snapshots once per project per turn, waits for it on later calls, and again after newTurn()", async () => {
    const home = tempDir("home");
    const project = tempDir("project");
    projectGit(project, "init", "-q");
    put(project, "src/a.txt", "1\n");
    const warnings: string[] = [];
    const clock = fakeClock();
    const tracker = new CheckpointTracker({ home, now: clock.now, onWarning: (w) => warnings.push(w) });

    const [first, second] = await Promise.all([
      tracker.beforeChange(join(project, "src"), { turn: 1, sessionId: "s" }),
      tracker.beforeChange(project, { turn: 1, sessionId: "s" }),
    ]);
    assert.ok(first);
    assert.equal(second, null);
    assert.deepEqual([first.turn, first.sessionId, first.reason], [1, "s", "before changes in turn 1"]);
    put(project, "src/a.txt", "2\n");
    assert.equal(await tracker.beforeChange(join(project, "src", "deeper", "not-yet"), { turn: 1 }), null);
    await tracker.endTurn();

    tracker.newTurn();
    const next = await tracker.beforeChange(join(project, "src", "a.txt"), { turn: 2 });
    assert.equal(next?.turn, 2);
    const store = await openCheckpointStore({ home, projectDir: project });
    assert.equal((await store.list()).length, 2);
    assert.deepEqual(warnings, []);
  });

  test("the after-turn mark from endTurn() makes a later restore keep hand edits", async () => {
    const home = tempDir("home");
    const project = tempDir("project");
    put(project, "f.txt", "original\n");
    const tracker = new CheckpointTracker({ home });
    const cp = await tracker.beforeChange(project, { turn: 1 });
    assert.ok(cp);
    put(project, "f.txt", "by the agent\n");
    put(project, "g.txt", "by the agent\n");
    await tracker.endTurn();
    put(project, "f.txt", "by hand\n");
    const store = await openCheckpointStore({ home, projectDir: project });
    const result = await store.restore(cp.id);
    assert.deepEqual(result.keptHandEdits, ["f.txt"]);
    assert.deepEqual(result.removedFiles, ["g.txt"]);
  });

  test("never snapshots the filesystem root or the home directory", async () => {
    assert.equal(projectRoot("/"), null);
    assert.equal(projectRoot(homedir()), null);
    const home = tempDir("home");
    const tracker = new CheckpointTracker({ home });
    assert.equal(await tracker.beforeChange("/", { turn: 1 }), null);
    assert.equal(await tracker.beforeChange(homedir(), { turn: 1 }), null);
    assert.equal(existsSync(join(home, "checkpoints")), false);
  });

  test("reports a warning and returns null when git cannot be run, once, without throwing", async () => {
    const home = tempDir("home");
    const project = tempDir("project");
    put(project, "f.txt", "x\n");
    const warnings: string[] = [];
    const tracker = new CheckpointTracker({ home, gitBinary: "/nonexistent/git", onWarning: (w) => warnings.push(w) });
    assert.equal(await tracker.beforeChange(project, { turn: 1 }), null);
    await tracker.endTurn();
    tracker.newTurn();
    assert.equal(await tracker.beforeChange(project, { turn: 2 }), null);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /Checkpoints are off: could not run git \(\/nonexistent\/git\)/);
  });

  test("reports other failures per project and keeps working", async () => {
    const home = tempDir("home");
    writeFileSync(join(home, "checkpoints"), "a file where the checkpoint directory should be");
    const project = tempDir("project");
    put(project, "f.txt", "x\n");
    const warnings: string[] = [];
    const tracker = new CheckpointTracker({ home, onWarning: (w) => warnings.push(w) });
    assert.equal(await tracker.beforeChange(project, { turn: 1 }), null);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^Could not checkpoint /);
    rmSync(join(home, "checkpoints"));
    tracker.newTurn();
    assert.ok(await tracker.beforeChange(project, { turn: 2 }));
  });
});
