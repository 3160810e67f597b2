/**
 * A stand-in for Bitwarden's `bws` CLI: an executable script named `bws` in its own directory,
 * speaking the part of its contract we use (`secret list [PROJECT_ID] --output json [--server-url
 * URL]`, the token in BWS_ACCESS_TOKEN, exit 1 with a report on stderr) and recording each call.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export interface FakeSecret {
  key: string;
  value: string;
  projectId?: string;
}

export interface FakeBwsState {
  /** The only token accepted; another one is refused with a report that echoes it (as a careless CLI might). */
  token: string;
  secrets: FakeSecret[];
  /** ok (default), fail (exit 1 with a report), garbage (not JSON), object (JSON, not a list), hang. */
  mode?: "ok" | "fail" | "garbage" | "object" | "hang";
}

export interface FakeBwsCall {
  argv: string[];
  /** BWS_ACCESS_TOKEN as the fake saw it. */
  token: string | null;
}

export interface FakeBws {
  dir: string;
  /** PATH with the fake first. */
  path: string;
  setState(state: FakeBwsState): void;
  calls(): FakeBwsCall[];
}

const SCRIPT = String.raw`
const { appendFileSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const dir = __dirname_placeholder;
const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
const argv = process.argv.slice(2);
const token = process.env.BWS_ACCESS_TOKEN ?? null;
appendFileSync(join(dir, "calls.jsonl"), JSON.stringify({ argv, token }) + "\n");
const report = (what) => {
  process.stderr.write("\u001b[31mError:\u001b[0m \n   0: " + what + "\n\nLocation:\n   crates/bws/src/main.rs:70\n\nBacktrace omitted.\n");
  process.exit(1);
};
if (state.mode === "hang") setInterval(() => {}, 1000);
else if (!token) report("Missing access token");
else if (token !== state.token) report("Failed to login with access token " + token + ": [400 Bad Request] invalid_client");
else if (state.mode === "fail") report("Received error message from server: [404 Not Found] Resource not found.");
else if (state.mode === "garbage") process.stdout.write("Some secrets: " + state.secrets.map((s) => s.value).join(",") + "\n");
else if (state.mode === "object") process.stdout.write(JSON.stringify({ data: state.secrets }) + "\n");
else {
  if (argv[0] !== "secret" || argv[1] !== "list") report("unexpected command " + argv.join(" "));
  const project = argv[2] && !argv[2].startsWith("-") ? argv[2] : undefined;
  const listed = state.secrets
    .filter((s) => project === undefined || s.projectId === project)
    .map((s, i) => ({
      id: "00000000-0000-4000-8000-00000000000" + i,
      organizationId: "11111111-1111-4111-8111-111111111111",
      projectId: s.projectId ?? null,
      key: s.key,
      value: s.value,
      note: "",
      creationDate: "2026-01-01T00:00:00Z",
      revisionDate: "2026-01-01T00:00:00Z",
    }));
  process.stdout.write(JSON.stringify(listed, null, 2) + "\n");
}
`;

export function createFakeBws(state: FakeBwsState): FakeBws {
  const dir = mkdtempSync(join(tmpdir(), "hermes-fake-bws-"));
  const script = join(dir, "bws");
  writeFileSync(script, `#!${process.execPath}\n${SCRIPT.replace("__dirname_placeholder", JSON.stringify(dir))}`);
  chmodSync(script, 0o755);
  const fake: FakeBws = {
    dir,
    path: `${dir}${delimiter}${process.env.PATH ?? ""}`,
    setState: (next) => writeFileSync(join(dir, "state.json"), JSON.stringify(next)),
    calls: () => {
      const file = join(dir, "calls.jsonl");
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as FakeBwsCall);
    },
  };
  fake.setState(state);
  return fake;
}
