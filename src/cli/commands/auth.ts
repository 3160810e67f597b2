/**
 * `hermes auth add|list|remove|reset|status`: the pooled API keys of each provider, kept in
 * $HERMES_HOME/auth.json. Keys are always shown masked. A corrupt auth.json is reported with its
 * path and never rewritten. State modules load inside the actions, so registering costs nothing.
 */
import type { Command } from "commander";
import type { PoolConfig } from "../../runtime/credentials.js";
import type { AuthStoreData } from "../../state/auth-store.js";
import { type CredentialRecord, newApiKeyRecord } from "../../util/credential-record.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, maskSecret, processIo } from "./config.js";

export interface AuthCommandDeps {
  /** Reads a key typed or piped by the user (default: one line of stdin, not echoed on a terminal). */
  readSecret?: (prompt: string) => Promise<string>;
  /** Epoch seconds. */
  now?: () => number;
  env?: Record<string, string | undefined>;
}

async function readSecretFromStdin(prompt: string): Promise<string> {
  const { createInterface } = await import("node:readline");
  const { Writable } = await import("node:stream");
  const tty = Boolean(process.stdin.isTTY);
  if (tty) process.stderr.write(prompt);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: tty });
  try {
    return await new Promise<string>((resolve) => {
      rl.once("line", resolve);
      rl.once("close", () => resolve(""));
    });
  } finally {
    rl.close();
    if (tty) process.stderr.write("\n");
  }
}

async function modules() {
  const [store, credentials, providers, paths, pool] = await Promise.all([
    import("../../state/auth-store.js"),
    import("../../runtime/credentials.js"),
    import("../../llm/providers.js"),
    import("../../state/paths.js"),
    import("../../llm/credential-pool.js"),
  ]);
  return { ...store, ...credentials, ...providers, ...paths, ...pool };
}

type Modules = Awaited<ReturnType<typeof modules>>;

function providerId(m: Modules, name: string): string {
  const spec = m.resolveProvider(name);
  if (!spec) throw new UsageError(`unknown provider "${name}" (hermes help providers lists them)`);
  return spec.id;
}

/** Strategies from config.yaml; a broken config only costs the default strategy here. */
async function strategies(home: string): Promise<PoolConfig> {
  try {
    const { loadConfig } = await import("../../state/config.js");
    return loadConfig({ home }).config;
  } catch {
    return {};
  }
}

function formatWait(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${rest}s`;
  return `${rest}s`;
}

function statusOf(m: Modules, record: CredentialRecord, now: number): string {
  const why = [record.lastErrorCode ? `HTTP ${record.lastErrorCode}` : "", record.lastErrorReason ?? ""]
    .filter(Boolean)
    .join(" ");
  if (record.lastStatus === "dead") return `dead${why ? ` (${why})` : ""}: remove it and add a new key`;
  const again = m.availableAgainAt(record);
  if (record.lastStatus === "exhausted" && again > now) {
    return `exhausted${why ? ` (${why})` : ""}, available again in ${formatWait(again - now)}`;
  }
  return "available";
}

function nextLabel(records: CredentialRecord[]): string {
  const taken = new Set(records.map((r) => r.label));
  let n = records.length + 1;
  while (taken.has(`key-${n}`)) n++;
  return `key-${n}`;
}

/** Providers to show: those named, else every provider with a stored or environment key. */
function providersToShow(m: Modules, data: AuthStoreData, env: Record<string, string | undefined>, only?: string) {
  if (only) return [providerId(m, only)];
  const ids = new Set(Object.keys(data.credentialPool).filter((id) => (data.credentialPool[id] ?? []).length > 0));
  for (const spec of m.PROVIDERS) if (m.poolRecords([], spec.id, env).length > 0) ids.add(spec.id);
  return [...ids];
}

export function registerAuthCommands(program: Command, io: CommandIo = processIo, deps: AuthCommandDeps = {}): Command {
  const env = () => deps.env ?? process.env;
  const now = () => deps.now?.() ?? Date.now() / 1000;

  /** Runs an action; an unreadable auth.json becomes a one-line report and exit code 1. */
  const guarded =
    <A extends unknown[]>(fn: (m: Modules, home: string, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const m = await modules();
      try {
        await fn(m, m.hermesHome(), ...args);
      } catch (error) {
        if (!(error instanceof m.AuthStoreError)) throw error;
        io.err(`hermes auth: ${error.message}`);
        io.setExitCode(1);
      }
    };

  const auth = program.command("auth").description("manage pooled API keys per provider (auth.json)");

  auth
    .command("add <provider>")
    .description("store another API key for a provider (read from stdin when --key is not given)")
    .option("--key <key>", "the API key (prefer stdin, which keeps it out of shell history)")
    .option("--label <label>", "a name for the key (default key-N)")
    .action(
      guarded(async (m, home, provider: string, opts: { key?: string; label?: string }) => {
        const id = providerId(m, provider);
        if (id === "vertex") {
          throw new UsageError(
            `${id} takes no API key: it signs requests with Google credentials (VERTEX_CREDENTIALS_PATH, GOOGLE_APPLICATION_CREDENTIALS or \`gcloud auth application-default login\`; see hermes doctor)`,
          );
        }
        const key = (opts.key ?? (await (deps.readSecret ?? readSecretFromStdin)(`API key for ${id}: `))).trim();
        if (!key) throw new UsageError("no key given: pass --key KEY or pipe the key on stdin");
        const path = m.hermesPaths(home).auth;
        const { randomBytes } = await import("node:crypto");
        let added: CredentialRecord | undefined;
        let count = 0;
        await m.updateAuthStore(path, (data) => {
          const records = data.credentialPool[id] ?? [];
          const same = records.find((r) => r.accessToken === key);
          if (same) throw new UsageError(`that key is already in the ${id} pool as "${same.label}"`);
          const label = opts.label?.trim() || nextLabel(records);
          if (records.some((r) => r.label === label || r.id === label)) {
            throw new UsageError(`the ${id} pool already has a key labelled "${label}"`);
          }
          added = newApiKeyRecord({
            id: randomBytes(4).toString("hex"),
            label,
            priority: records.reduce((max, r) => Math.max(max, r.priority + 1), 0),
            source: "manual",
            accessToken: key,
            tokenUpdatedAt: now(),
          });
          data.credentialPool[id] = [...records, added];
          count = records.length + 1;
          return data;
        });
        if (added) {
          io.out(
            `Added ${added.label} (${maskSecret(key)}) to the ${id} pool in ${path}: ${count} stored key${count === 1 ? "" : "s"}.`,
          );
        }
      }),
    );

  auth
    .command("list [provider]")
    .description("list pooled keys (masked), stored and from the environment")
    .action(
      guarded(async (m, home, provider: string | undefined) => {
        const data = m.loadAuthStore(m.hermesPaths(home).auth);
        const config = await strategies(home);
        const ids = providersToShow(m, data, env(), provider);
        const lines: string[] = [];
        for (const id of ids) {
          const records = m.poolRecords(data.credentialPool[id] ?? [], id, env());
          lines.push(`${id} (${m.poolStrategy(config, id)}):`);
          if (records.length === 0) lines.push("  no keys");
          records.forEach((r, i) => {
            lines.push(
              `  ${i + 1}. ${r.label.padEnd(16)} ${maskSecret(r.accessToken).padEnd(12)} ${r.source}  id ${r.id}`,
            );
          });
        }
        io.out(lines.length ? lines.join("\n") : "No pooled credentials. Add one with: hermes auth add PROVIDER");
      }),
    );

  auth
    .command("remove <provider> <target>")
    .description("remove a stored key by its id or label")
    .action(
      guarded(async (m, home, provider: string, target: string) => {
        const id = providerId(m, provider);
        const envRecord = m.poolRecords([], id, env()).find((r) => r.id === target || r.label === target);
        if (envRecord) {
          throw new UsageError(
            `${envRecord.label} comes from the environment: remove it from ${m.hermesPaths(home).env} or your shell instead`,
          );
        }
        let removed: CredentialRecord | undefined;
        await m.updateAuthStore(m.hermesPaths(home).auth, (data) => {
          const records = data.credentialPool[id] ?? [];
          removed = records.find((r) => r.id === target) ?? records.find((r) => r.label === target);
          if (!removed) throw new UsageError(`no key "${target}" in the ${id} pool (see hermes auth list ${id})`);
          data.credentialPool[id] = records.filter((r) => r !== removed);
          return data;
        });
        if (removed) io.out(`Removed ${removed.label} (${maskSecret(removed.accessToken)}) from the ${id} pool.`);
      }),
    );

  auth
    .command("reset <provider>")
    .description("clear the exhausted/dead marks of a provider's stored keys")
    .action(
      guarded(async (m, home, provider: string) => {
        const id = providerId(m, provider);
        let cleared = 0;
        await m.updateAuthStore(m.hermesPaths(home).auth, (data) => {
          for (const record of data.credentialPool[id] ?? []) {
            if (record.lastStatus === "exhausted" || record.lastStatus === "dead") cleared++;
            Object.assign(record, {
              lastStatus: null,
              lastStatusAt: null,
              lastErrorCode: null,
              lastErrorReason: null,
              lastErrorResetAt: null,
            });
          }
          return data;
        });
        io.out(`Reset ${cleared} key${cleared === 1 ? "" : "s"} of ${id}: every stored key is available again.`);
      }),
    );

  auth
    .command("status")
    .description("per provider: which keys are available, exhausted (with time left) or dead")
    .action(
      guarded(async (m, home) => {
        const data = m.loadAuthStore(m.hermesPaths(home).auth);
        const config = await strategies(home);
        const at = now();
        const lines: string[] = [];
        for (const id of providersToShow(m, data, env())) {
          const records = m.poolRecords(data.credentialPool[id] ?? [], id, env());
          const states = records.map((r) => statusOf(m, r, at));
          const available = states.filter((s) => s === "available").length;
          lines.push(`${id} (${m.poolStrategy(config, id)}): ${available} of ${records.length} available`);
          records.forEach((r, i) => {
            lines.push(`  ${r.label.padEnd(16)} ${maskSecret(r.accessToken).padEnd(12)} ${states[i]}`);
          });
        }
        io.out(lines.length ? lines.join("\n") : "No pooled credentials. Add one with: hermes auth add PROVIDER");
      }),
    );

  return auth;
}
