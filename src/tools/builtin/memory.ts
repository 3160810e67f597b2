/** The `memory` tool: save, correct and drop durable facts in MEMORY.md and USER.md. */
import { recordChange, snapshotFiles } from "../../util/change-ledger.js";
import { z } from "../../util/schema/index.js";
import { approveAgentWrite } from "../approval/agent-writes.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

type Target = "memory" | "user";

/** What the tool needs of the memory store the agent passes as `ctx.services.memory`. */
export interface MemoryService {
  /** The file an entry of `target` lives in (for the change ledger). */
  path?(target: Target): string;
  add(target: Target, content: string): unknown;
  replace(target: Target, oldText: string, newContent: string): unknown;
  remove(target: Target, oldText: string): unknown;
}

export const memoryParameters = z.object({
  action: z.enum(["add", "replace", "remove"]).describe("What to do with an entry"),
  target: z
    .enum(["memory", "user"])
    .describe('"user": about the user and their preferences; "memory": about the environment, tools and work'),
  content: z.string().optional().describe("add/replace: the entry"),
  old_text: z.string().optional().describe("replace/remove: a unique part of the old entry"),
});

export type MemoryArgs = z.infer<typeof memoryParameters>;

function isMemoryService(value: unknown): value is MemoryService {
  const candidate = value as Partial<MemoryService> | undefined;
  return (
    typeof candidate?.add === "function" &&
    typeof candidate.replace === "function" &&
    typeof candidate.remove === "function"
  );
}

export async function memoryTool(args: MemoryArgs, ctx: ToolContext): Promise<string> {
  const store = ctx.services?.memory;
  if (!isMemoryService(store)) {
    return JSON.stringify({ success: false, error: "Persistent memory is turned off in this session." });
  }
  const refusal = await approveAgentWrite("memory", describeWrite(args), ctx);
  if (refusal) return JSON.stringify({ success: false, error: refusal });
  const file = store.path?.(args.target);
  const before = file ? snapshotFiles([file]) : undefined;
  const result = await applyMemoryAction(store, args);
  if (file && before) {
    const what = args.action === "remove" ? (args.old_text ?? "") : (args.content ?? "");
    const name = args.target === "user" ? "USER.md" : "MEMORY.md";
    const summary = `${args.action} ${name}: ${what.replace(/\s+/g, " ").slice(0, 80)}`;
    const change = { kind: "memory" as const, target: name, action: args.action, summary };
    await recordChange(ctx.services, ctx.sessionId, change, before, snapshotFiles([file]));
  }
  return typeof result === "string" ? result : JSON.stringify(result);
}

/** The write as the user is asked about it: which file, and the entry (shortened). */
function describeWrite(args: MemoryArgs): string {
  const name = args.target === "user" ? "USER.md" : "MEMORY.md";
  const entry = (text: string | undefined) => JSON.stringify((text ?? "").replace(/\s+/g, " ").trim().slice(0, 200));
  if (args.action === "add") return `add to ${name}: ${entry(args.content)}`;
  if (args.action === "remove") return `remove from ${name} the entry matching ${entry(args.old_text)}`;
  return `replace in ${name} the entry matching ${entry(args.old_text)} with ${entry(args.content)}`;
}

async function applyMemoryAction(store: MemoryService, args: MemoryArgs): Promise<unknown> {
  const content = args.content ?? "";
  const oldText = args.old_text ?? "";
  let result: unknown;
  switch (args.action) {
    case "add":
      if (!content.trim()) return JSON.stringify({ success: false, error: "add needs content." });
      result = await store.add(args.target, content);
      break;
    case "replace":
      if (!oldText.trim() || !content.trim()) {
        return JSON.stringify({ success: false, error: "replace needs old_text and content." });
      }
      result = await store.replace(args.target, oldText, content);
      break;
    case "remove":
      if (!oldText.trim()) return JSON.stringify({ success: false, error: "remove needs old_text." });
      result = await store.remove(args.target, oldText);
      break;
  }
  return result;
}

export function registerMemoryTools(registry: ToolRegistry): void {
  registry.register({
    name: "memory",
    toolset: "memory",
    description:
      "Keep short, durable facts for future sessions (preferences, corrections, environment, conventions), " +
      "not task progress. Returns JSON with the entries and how full memory is; when full, replace or remove " +
      "entries. Changes reach the prompt next session.",
    parameters: memoryParameters,
    handler: memoryTool,
    parallelSafe: false,
    emoji: "🧠",
  });
}
