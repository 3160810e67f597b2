/**
 * The agent's events as `session/update` notifications: message and thought chunks, tool
 * calls with their kind, status, locations and edit diffs, plan updates from the todo tool, and
 * context compactions (`compaction_update`, to clients that advertise `session.compaction`; sent
 * for the agent's whole life, since `/compact` runs outside a turn).
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { PlanEntry, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../agent/events.js";
import type { ClientBridge } from "./client-bridge.js";
import { toolKind, toolLocations, toolTitle } from "./tool-kinds.js";

/** Tool output shown in the editor; the model still gets all of it. */
const MAX_SHOWN_RESULT_CHARS = 20_000;
/** Files larger than this get no "before" text in their diff. */
const MAX_DIFF_FILE_BYTES = 2_000_000;

export interface ActiveToolCall {
  toolCallId: string;
  name: string;
  title: string;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function shownResult(result: string): string {
  return result.length > MAX_SHOWN_RESULT_CHARS
    ? `${result.slice(0, MAX_SHOWN_RESULT_CHARS)}\n… [${result.length - MAX_SHOWN_RESULT_CHARS} more characters]`
    : result;
}

/** Plan entries from the todo tool's result (`{"todos": [...]}`); undefined when it holds none. */
export function planFromTodoResult(result: string): PlanEntry[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return undefined;
  }
  const todos = record(parsed).todos;
  if (!Array.isArray(todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (const todo of todos) {
    const item = record(todo);
    if (typeof item.content !== "string" || item.status === "cancelled") continue;
    const status = item.status === "in_progress" || item.status === "completed" ? item.status : "pending";
    entries.push({ content: item.content, priority: "medium", status });
  }
  return entries;
}

/** A compaction's start and end as the client's `compaction_update`s, when it takes them. */
export function sendCompaction(bridge: ClientBridge, event: AgentEvent): void {
  if (event.type !== "compaction" || !bridge.canShowCompactions) return;
  if (event.phase === "started") {
    void bridge.send({ sessionUpdate: "compaction_update", compactionId: event.id, status: "in_progress" });
    return;
  }
  void bridge.send({
    sessionUpdate: "compaction_update",
    compactionId: event.id,
    status: event.compressed ? "completed" : "failed",
    ...(event.summary ? { summary: [{ type: "text", text: event.summary }] } : {}),
    ...(!event.compressed ? { error: event.reason ?? "nothing could be condensed" } : {}),
  });
}

export class TurnUpdates {
  private readonly active = new Map<string, ActiveToolCall>();
  private lastActive: ActiveToolCall | undefined;

  constructor(
    private readonly bridge: ClientBridge,
    private readonly cwd: string,
  ) {}

  /** The tool call running now (approval prompts and terminals attach to it). */
  current(): ActiveToolCall | undefined {
    return this.lastActive;
  }

  readonly handle = (event: AgentEvent): void => {
    switch (event.type) {
      case "text_delta":
        if (event.text) this.chunk("agent_message_chunk", event.text);
        break;
      case "reasoning_delta":
        if (event.text) this.chunk("agent_thought_chunk", event.text);
        break;
      case "tool_start":
        this.toolStart(event);
        break;
      case "tool_end":
        this.toolEnd(event);
        break;

      default:
        break;
    }
  };

  showTerminal(terminalId: string): void {
    const call = this.lastActive;
    if (!call) return;
    void this.bridge.send({
      sessionUpdate: "tool_call_update",
      toolCallId: call.toolCallId,
      content: [{ type: "terminal", terminalId }],
    });
  }

  private chunk(kind: "agent_message_chunk" | "agent_thought_chunk", text: string): void {
    void this.bridge.send({ sessionUpdate: kind, content: { type: "text", text } });
  }

  private toolStart(event: Extract<AgentEvent, { type: "tool_start" }>): void {
    const title = toolTitle(event.name, event.args, event.preview);
    const call = { toolCallId: event.callId, name: event.name, title };
    this.active.set(event.callId, call);
    this.lastActive = call;
    void this.bridge.send({
      sessionUpdate: "tool_call",
      toolCallId: event.callId,
      title,
      kind: toolKind(event.name),
      status: "pending",
      locations: toolLocations(event.name, event.args, this.cwd),
      rawInput: event.args,
    });
    // The "before" text is taken now, before the tool runs and changes the file.
    const diffing = this.diffOf(event.name, event.args);
    void this.bridge.send(async () => {
      const diff = await diffing;
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: event.callId,
        status: "in_progress",
        ...(diff ? { content: [diff] } : {}),
      };
    });
  }

  private toolEnd(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    this.active.delete(event.callId);
    if (this.lastActive?.toolCallId === event.callId) this.lastActive = [...this.active.values()].at(-1);
    const isEdit = event.name === "write_file" || event.name === "patch";
    const content: ToolCallContent[] =
      isEdit && !event.failed ? [] : [{ type: "content", content: { type: "text", text: shownResult(event.result) } }];
    void this.bridge.send({
      sessionUpdate: "tool_call_update",
      toolCallId: event.callId,
      status: event.failed ? "failed" : "completed",
      ...(content.length ? { content } : {}),
      rawOutput: { result: shownResult(event.result) },
    });
    if (event.name === "todo" && !event.failed) {
      const entries = planFromTodoResult(event.result);
      if (entries) void this.bridge.send({ sessionUpdate: "plan", entries });
    }
  }

  /** The before and after text of an edit, for the editor's diff view. */
  private async diffOf(name: string, args: unknown): Promise<ToolCallContent | undefined> {
    const a = record(args);
    if (typeof a.path !== "string" || !a.path.trim()) return undefined;
    const path = isAbsolute(a.path) ? a.path : resolve(this.cwd, a.path);
    if (name === "write_file" && typeof a.content === "string") {
      const newText = a.content;
      return { type: "diff", path, oldText: await this.currentText(path), newText };
    }
    if (
      name === "patch" &&
      a.mode !== "patch" &&
      typeof a.old_string === "string" &&
      typeof a.new_string === "string"
    ) {
      return { type: "diff", path, oldText: a.old_string, newText: a.new_string };
    }
    return undefined;
  }

  private currentText(path: string): Promise<string | null> {
    if (this.bridge.canReadFiles) return this.bridge.readTextFile(path).catch(() => null);
    try {
      if (statSync(path).size > MAX_DIFF_FILE_BYTES) return Promise.resolve(null);
      return Promise.resolve(readFileSync(path, "utf8"));
    } catch {
      return Promise.resolve(null);
    }
  }
}
