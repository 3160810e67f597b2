import assert from "node:assert/strict";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createGunzip, gzipSync } from "node:zlib";
import { createBackup, defaultBackupName } from "../../src/cli/backup/create.js";
import { BackupError } from "../../src/cli/backup/errors.js";
import { restoreBackup, safeEntryPath } from "../../src/cli/backup/restore.js";
import { registerBackupCommands } from "../../src/cli/commands/backup.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { readTar, TAR_END, tarHeader, tarPadding } from "../../src/util/tar.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const LONG_SKILL_DIR = `skills/${"research-and-summarise-".repeat(4)}papers`;

const mode = (path: string) => statSync(path).mode & 0o777;

async function archiveNames(file: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of readTar(createReadStream(file).pipe(createGunzip()))) names.push(entry.path);
  return names;
}

/** A home as a user has it, with the session store open and its latest writes still in the WAL. */
async function populatedHome(): Promise<{ home: string; store: SqliteSessionStore; sessionId: string }> {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "model:\n  default: test-model\n");
  writeFileSync(join(home, ".env"), "OPENROUTER_API_KEY=sk-or-test\n", { mode: 0o644 });
  writeFileSync(join(home, "auth.json"), '{"pools":{}}\n', { mode: 0o600 });
  mkdirSync(join(home, "memories"));
  writeFileSync(join(home, "memories", "MEMORY.md"), "The user prefers metric units.\n");
  mkdirSync(join(home, LONG_SKILL_DIR), { recursive: true });
  writeFileSync(join(home, LONG_SKILL_DIR, "SKILL.md"), "---\nname: papers\n---\nRead papers.\n");
  mkdirSync(join(home, LONG_SKILL_DIR, "node_modules", "dep"), { recursive: true });
  writeFileSync(join(home, LONG_SKILL_DIR, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
  mkdirSync(join(home, "cache"));
  writeFileSync(join(home, "cache", "sandbox-probe.json"), "{}");
  mkdirSync(join(home, "logs"));
  writeFileSync(join(home, "logs", "agent.log"), "a log line\n");
  mkdirSync(join(home, "checkpoints"));
  writeFileSync(join(home, "checkpoints", "snap"), "x");
  writeFileSync(join(home, "memories", "MEMORY.md.lock"), "");
  writeFileSync(join(home, ".config.yaml.123.abcd.tmp"), "half");
  symlinkSync("/etc/hostname", join(home, "outside-link"));
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  const session = await store.createSession({ title: "Unit conversions" });
  await store.appendMessages(session.id, [
    { role: "user", content: "How many metres in a mile?" },
    { role: "assistant", content: "About 1609 metres." },
  ]);
  return { home, store, sessionId: session.id };
}

test("a backup without secrets holds config, memories, skills and sessions, and leaves out caches and keys", async () => {
  const { home, store, sessionId } = await populatedHome();
  const out = join(tempHome(), "backup.tar.gz");
  const result = await createBackup(home, { out, withSecrets: false });
  store.close();
  assert.equal(mode(out), 0o600, "the archive is readable by its owner only");
  const names = await archiveNames(out);
  for (const kept of ["config.yaml", "memories/MEMORY.md", `${LONG_SKILL_DIR}/SKILL.md`, "state.db"]) {
    assert.ok(names.includes(kept), `${kept} is in the archive`);
  }
  for (const name of names) {
    assert.doesNotMatch(
      name,
      /^(\.env|auth\.json|cache\/|logs\/|checkpoints\/|outside-link)|node_modules|\.lock$|\.tmp$|-wal$|-shm$/,
    );
  }
  assert.equal(result.secrets.length, 0);
  assert.equal(result.databases, 1);
  const leftOut = result.leftOut.map((item) => item.relative);
  for (const name of [".env", "auth.json", "cache/", "logs/", "checkpoints/", "outside-link"]) {
    assert.ok(leftOut.includes(name), `${name} is reported as left out`);
  }

  const restoredHome = join(tempHome(), "home");
  const restored = await restoreBackup(out, restoredHome, { force: false });
  assert.equal(restored.movedAside, undefined);
  assert.equal(readFileSync(join(restoredHome, "config.yaml"), "utf8"), "model:\n  default: test-model\n");
  assert.equal(
    readFileSync(join(restoredHome, LONG_SKILL_DIR, "SKILL.md"), "utf8"),
    "---\nname: papers\n---\nRead papers.\n",
  );
  assert.equal(existsSync(join(restoredHome, ".env")), false);
  const reopened = await SqliteSessionStore.open(join(restoredHome, "state.db"));
  try {
    assert.equal((await reopened.getSession(sessionId))?.title, "Unit conversions");
    assert.deepEqual(
      (await reopened.getMessages(sessionId)).map((message) => message.content),
      ["How many metres in a mile?", "About 1609 metres."],
    );
    assert.equal((await reopened.search("metres")).length, 2);
  } finally {
    reopened.close();
  }
});

test("a backup with secrets carries .env and auth.json, restored readable by the owner only", async () => {
  const { home, store } = await populatedHome();
  store.close();
  const out = join(tempHome(), "with-secrets.tar.gz");
  const result = await createBackup(home, { out, withSecrets: true });
  assert.deepEqual(result.secrets.sort(), [".env", "auth.json"]);
  const restoredHome = join(tempHome(), "home");
  await restoreBackup(out, restoredHome, { force: false });
  assert.equal(readFileSync(join(restoredHome, ".env"), "utf8"), "OPENROUTER_API_KEY=sk-or-test\n");
  assert.equal(mode(join(restoredHome, ".env")), 0o600, ".env was 0644 at home and is 0600 once restored");
  assert.equal(mode(join(restoredHome, "auth.json")), 0o600);
  assert.equal(mode(join(restoredHome, "state.db")), 0o600);
});

test("the backup command writes the default name and reports what it holds; an existing file is not overwritten", async () => {
  assert.equal(defaultBackupName(new Date("2026-01-02T03:04:05.678Z")), "hermes-backup-20260102T030405Z.tar.gz");
  const { home, store } = await populatedHome();
  store.close();
  const out = join(tempHome(), "cmd.tar.gz");
  const shown = await run(registerBackupCommands, home, ["backup", "--out", out]);
  assert.match(shown.out, /Wrote .*cmd\.tar\.gz \(.+, readable by you only\)/);
  assert.match(shown.out, /It holds \d+ files, .* before compression, with 1 database copied consistently/);
  assert.match(shown.out, /\.env, auth\.json: secret \(add --with-secrets to include it\)/);
  assert.match(shown.out, /cache\/: cache/);
  await assert.rejects(run(registerBackupCommands, home, ["backup", "--out", out]), /already exists/);
});

test("restore refuses a home that is not empty, and with --force moves it aside first", async () => {
  const { home, store } = await populatedHome();
  store.close();
  const out = join(tempHome(), "b.tar.gz");
  await createBackup(home, { out, withSecrets: false });
  const target = tempHome();
  writeFileSync(join(target, "config.yaml"), "model:\n  default: other\n");

  await assert.rejects(
    run(registerBackupCommands, target, ["backup", "restore", out]),
    /is not empty; restoring would replace it\. Add --force/,
  );
  assert.deepEqual(readdirSync(target), ["config.yaml"], "nothing was written");

  const forced = await run(registerBackupCommands, target, ["backup", "restore", out, "--force"]);
  const aside = /Moved the previous home aside to (\S+)/.exec(forced.out)?.[1] ?? "";
  assert.ok(aside.startsWith(`${target}.before-restore-`), forced.out);
  assert.equal(readFileSync(join(aside, "config.yaml"), "utf8"), "model:\n  default: other\n");
  assert.equal(readFileSync(join(target, "config.yaml"), "utf8"), "model:\n  default: test-model\n");
  assert.match(forced.out, /Restored \d+ files and \d+ directories into /);
});

test("restore refuses while a gateway runs on the home", async () => {
  const target = tempHome();
  mkdirSync(join(target, "gateway"));
  const state = { pid: process.pid, startedAt: Date.now(), updatedAt: Date.now(), apiServer: null, platforms: {} };
  writeFileSync(join(target, "gateway", "state.json"), JSON.stringify(state));
  await assert.rejects(
    run(registerBackupCommands, target, ["backup", "restore", join(target, "missing.tar.gz"), "--force"]),
    /a gateway \(pid \d+\) is running on .*; stop it first \(hermes gateway stop\)/,
  );
});

/** A raw ustar header, as a hostile archive would have it. */
function rawHeader(name: string, typeflag: string, size: number, linkname = ""): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100);
  block.write("0000644\0", 100);
  block.write("0000000\0", 108);
  block.write("0000000\0", 116);
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  block.write("00000000000\0", 136);
  block.write(typeflag, 156);
  block.write(linkname, 157, 100);
  block.write("ustar\u000000", 257, "latin1");
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

interface HostileEntry {
  name: string;
  type?: string;
  body?: string;
  link?: string;
  /** The size the header claims, when it is not the body's. */
  size?: number;
}

function hostileArchive(dir: string, entries: HostileEntry[]) {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? "");
    parts.push(
      rawHeader(entry.name, entry.type ?? "0", entry.size ?? body.length, entry.link),
      body,
      tarPadding(body.length),
    );
  }
  parts.push(TAR_END);
  const file = join(dir, `hostile-${parts.length}-${Math.random().toString(16).slice(2)}.tar.gz`);
  writeFileSync(file, gzipSync(Buffer.concat(parts)));
  return file;
}

test("restore refuses hostile archives and writes nothing, inside the home or outside it", async () => {
  const parent = tempHome();
  const home = join(parent, "home");
  const absolute = join(tempHome(), "absolute-evil");
  const cases: Array<[string, HostileEntry[], RegExp]> = [
    [
      "a parent path",
      [
        { name: "config.yaml", body: "ok" },
        { name: "../evil", body: "pwned" },
      ],
      /climbs out/,
    ],
    ["a nested parent path", [{ name: "skills/../../evil", body: "pwned" }], /climbs out/],
    ["an absolute path", [{ name: absolute, body: "pwned" }], /absolute path/],
    [
      "a symbolic link",
      [
        { name: "skills", type: "2", link: "/etc" },
        { name: "skills/x", body: "pwned" },
      ],
      /a symbolic link/,
    ],
    ["a hard link", [{ name: "evil", type: "1", link: "/etc/passwd" }], /a hard link/],
    ["a device", [{ name: "dev", type: "3" }], /a device/],
    ["a named pipe", [{ name: "pipe", type: "6" }], /a named pipe/],
    ["an oversized long name", [{ name: "././@LongLink", type: "L", size: 8 * 1024 * 1024 }], /not plausible/],
  ];
  for (const [what, entries, reason] of cases) {
    const archive = hostileArchive(tempHome(), entries);
    await assert.rejects(restoreBackup(archive, home, { force: true }), reason, what);
    await assert.rejects(restoreBackup(archive, home, { force: true }), BackupError, what);
    assert.deepEqual(readdirSync(parent), [], `${what}: nothing written beside the home`);
    assert.equal(existsSync(absolute), false, `${what}: nothing written at the absolute path`);
  }
  assert.throws(() => safeEntryPath("C:/Windows/evil"), /absolute path/);
  assert.equal(safeEntryPath("./skills//a/./b"), "skills/a/b");
});

test("restore says what is wrong with a file that is not a backup", async () => {
  const dir = tempHome();
  const notGzip = join(dir, "notes.tar.gz");
  writeFileSync(notGzip, "just some text");
  await assert.rejects(restoreBackup(notGzip, join(dir, "home"), { force: false }), /not a Hermes backup/);
  const notTar = join(dir, "gz.tar.gz");
  writeFileSync(notTar, gzipSync(Buffer.alloc(1024, 7)));
  await assert.rejects(restoreBackup(notTar, join(dir, "home"), { force: false }), /checksum/);
  const truncated = join(dir, "cut.tar.gz");
  const whole = Buffer.concat([
    tarHeader({ path: "a", kind: "file", mode: 0o644, size: 2000, mtime: 0 }),
    Buffer.alloc(100),
  ]);
  writeFileSync(truncated, gzipSync(whole));
  await assert.rejects(restoreBackup(truncated, join(dir, "home"), { force: false }), /ends in the middle/);
  await assert.rejects(
    restoreBackup(join(dir, "missing.tar.gz"), join(dir, "home"), { force: false }),
    /no backup file/,
  );
  assert.deepEqual(readdirSync(dir).sort(), ["cut.tar.gz", "gz.tar.gz", "notes.tar.gz"]);
});
