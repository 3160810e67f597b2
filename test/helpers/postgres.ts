/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp dir, started on a free port with
 * durability turned off, one per test process, stopped when the process exits. Each caller gets
 * its own database. Where the server is run as root (CI containers), the cluster belongs to the
 * `postgres` system user, since PostgreSQL refuses to run as root.
 *
 * When PostgreSQL is not installed, `postgresOrSkip()` says so once and the tests that need it
 * are skipped, except under CI (`CI` set), where its absence is a failure.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPostgres {
  /** A new, empty database on the shared cluster. */
  database(): Promise<string>;
}

function binDir(): string | undefined {
  const fromEnv = process.env.HERMES_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.stdout.trim();
  return which.status === 0 && found ? join(found, "..") : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** uid/gid to run the server as: ours, or the postgres user's when we are root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

let cluster: Promise<{ url: (db: string) => string; admin: string }> | undefined;
let databases = 0;

async function startCluster(bin: string): Promise<{ url: (db: string) => string; admin: string }> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-pg-"));
  const data = join(dir, "data");
  const user = runAs();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const run = (command: string, args: string[]) => {
    const result = spawnSync(join(bin, command), args, { encoding: "utf8", cwd: dir, ...as });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  run("initdb", ["-D", data, "-A", "trust", "-U", "hermes", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  process.once("exit", () => {
    spawnSync(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], { ...as, stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  });
  const url = (db: string) => `postgres://hermes@127.0.0.1:${port}/${db}`;
  return { url, admin: url("postgres") };
}

let warned = false;

/** The shared test cluster, or undefined (with one notice) when PostgreSQL is not installed outside CI. */
export function postgresOrSkip(): TestPostgres | undefined {
  const bin = binDir();
  if (!bin) {
    if (process.env.CI) throw new Error("PostgreSQL is not installed; .ci/run installs the postgresql package");
    if (!warned) {
      warned = true;
      process.stderr.write("PostgreSQL not found (apt install postgresql): its store tests are skipped\n");
    }
    return undefined;
  }
  return {
    async database() {
      cluster ??= startCluster(bin);
      const { url, admin } = await cluster;
      const name = `t${process.pid}_${++databases}`;
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
  };
}
