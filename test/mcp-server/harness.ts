/**
 * Starts `hermes mcp serve` from source as a child process with its own HERMES_HOME (a
 * config.yaml pointing at the fake provider) and connects the MCP SDK's client to it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export const SERVE_COMMAND = ["--import", "tsx", "src/cli/main.ts", "mcp", "serve"];

export interface HermesHome {
  home: string;
  /** The working directory commands run in (terminal.cwd). */
  work: string;
}

export function makeHome(fake: FakeProvider): HermesHome {
  const home = tempDir("hermes-mcp-serve-");
  const work = join(home, "work");
  mkdirSync(work);
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: scripted\n  provider: custom\n  base_url: ${fake.url}/v1\nterminal:\n  cwd: ${work}\n`,
  );
  return { home, work };
}

export function serveEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, HERMES_HOME: home, OPENROUTER_API_KEY: "", OPENAI_API_KEY: "", HERMES_YOLO_MODE: "" };
}

export interface ServedHermes {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

export async function connect(home: string, flags: string[] = []): Promise<ServedHermes> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...SERVE_COMMAND, ...flags],
    env: serveEnv(home),
    cwd: process.cwd(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: "hermes-test-client", version: "1.0.0" });
  try {
    await client.connect(transport, { timeout: 60_000 });
  } catch (error) {
    await transport.close();
    throw new Error(`could not connect to hermes mcp serve: ${(error as Error).message}\n${stderr}`);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text of a tool result's content items, joined. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .map((item) => (item.type === "text" ? item.text : `[${item.type}]`))
    .join("\n");
}
