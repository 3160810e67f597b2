/** The `todo` tool: the agent's task list for the current session, kept in memory. */
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

const todoItemSchema = z.object({
  id: z.union([z.string(), z.number()]).describe("Stable id"),
  content: z.string().optional().describe("The task (optional when merging a status change)"),
  status: z.enum(TODO_STATUSES).optional().describe("Default pending"),
});

export const todoParameters = z.object({
  todos: z.array(todoItemSchema).optional().describe("Items to write; leave out to read the list"),
  merge: z.boolean().optional().describe("true: update by id and append; false (default): replace the list"),
});

export type TodoArgs = z.infer<typeof todoParameters>;
type TodoInput = z.infer<typeof todoItemSchema>;

/** One session's list. Order is the order items were first written. */
export class TodoStore {
  private items: TodoItem[] = [];

  list(): TodoItem[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** Replace the list; a repeated id keeps its first position and its last values. */
  replace(inputs: TodoInput[]): void {
    const next: TodoItem[] = [];
    for (const input of inputs) {
      const id = String(input.id);
      const existing = next.find((item) => item.id === id);
      const content = input.content?.trim() ?? existing?.content ?? "";
      const status = input.status ?? existing?.status ?? "pending";
      if (existing) Object.assign(existing, { content, status });
      else next.push({ id, content, status });
    }
    this.items = next;
  }

  /** Update items by id, appending ones not seen before. */
  merge(inputs: TodoInput[]): void {
    for (const input of inputs) {
      const id = String(input.id);
      const existing = this.items.find((item) => item.id === id);
      if (existing) {
        if (input.content?.trim()) existing.content = input.content.trim();
        if (input.status) existing.status = input.status;
      } else {
        this.items.push({ id, content: input.content?.trim() ?? "", status: input.status ?? "pending" });
      }
    }
  }

  /** Items still open, for re-injecting the plan after the context is compressed. */
  active(): TodoItem[] {
    return this.list().filter((item) => item.status === "pending" || item.status === "in_progress");
  }

  summary(): Record<TodoStatus | "total", number> {
    const counts = { total: this.items.length, pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
    for (const item of this.items) counts[item.status]++;
    return counts;
  }
}

function missingContent(inputs: TodoInput[], store: TodoStore, merge: boolean): string[] {
  const known = new Set(merge ? store.list().map((item) => item.id) : []);
  const seen = new Set<string>();
  const missing: string[] = [];
  for (const input of inputs) {
    const id = String(input.id);
    if (!input.content?.trim() && !known.has(id) && !seen.has(id)) missing.push(id);
    seen.add(id);
  }
  return missing;
}

export async function todoTool(args: TodoArgs, store: TodoStore): Promise<string> {
  if (args.todos) {
    const merge = args.merge ?? false;
    const missing = missingContent(args.todos, store, merge);
    if (missing.length) {
      return JSON.stringify({ error: `New items need content: id ${missing.join(", ")}`, todos: store.list() });
    }
    if (merge) store.merge(args.todos);
    else store.replace(args.todos);
  }
  return JSON.stringify({ todos: store.list(), summary: store.summary() });
}

/**
 * The store for a call: the one the agent passes as `ctx.services.todo`, else one kept per
 * session id by this registration.
 */
const MAX_TRACKED_SESSIONS = 256;

function storeResolver(): (ctx: ToolContext) => TodoStore {
  const bySession = new Map<string, TodoStore>();
  return (ctx) => {
    const provided = ctx.services?.todo;
    if (provided instanceof TodoStore) return provided;
    const key = ctx.sessionId ?? "";
    let store = bySession.get(key);
    if (!store) {
      store = new TodoStore();
      bySession.set(key, store);
      // Forget the oldest sessions so a long-lived process does not keep every list forever.
      if (bySession.size > MAX_TRACKED_SESSIONS) bySession.delete(bySession.keys().next().value ?? "");
    }
    return store;
  };
}

export function registerTodoTools(registry: ToolRegistry): void {
  const storeFor = storeResolver();
  registry.register({
    name: "todo",
    toolset: "todo",
    description:
      "The session's task list for multi-step work; call with no arguments to read it. Returns the whole list. " +
      "Keep one item in_progress and mark items completed as soon as they are done.",
    parameters: todoParameters,
    handler: (args, ctx) => todoTool(args, storeFor(ctx)),
    parallelSafe: false,
    emoji: "📋",
  });
}
