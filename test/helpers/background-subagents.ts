/**
 * Scripting a parent agent that dispatches background subagents, and subagents whose model
 * requests the fake provider holds until the test releases them (no timing involved).
 */
import type { RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";
import { lastToolResults } from "./agent-harness.js";

/** Generous: a test that starts the CLI as a process waits through its start-up too. */
const WAIT_LIMIT_MS = 20_000;

export function systemOf(req: RecordedRequest): string {
  const first = req.body?.messages?.[0];
  return first?.role === "system" ? String(first.content) : "";
}

/** The goal of the subagent that sent this request; undefined for the parent. */
export function childGoal(req: RecordedRequest): string | undefined {
  if (!systemOf(req).startsWith("You are a subagent")) return undefined;
  return /## Task\n(.+)/.exec(systemOf(req))?.[1];
}

/** The last user message of a request, as text. */
export function lastUserText(req: RecordedRequest): string {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.filter((m) => m.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

/** Resolves with a value once `open` is called; rejects after a bounded wait so a broken test fails. */
function deferred<T>(what: string) {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_LIMIT_MS);
    timer.unref();
    open = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
  });
  return { promise, open };
}

/**
 * Subagents' model requests, held per goal until `release(goal, reply)`. `arrived(goal)` resolves
 * once that subagent's request has reached the provider.
 */
export class HeldChildren {
  private readonly replies = new Map<string, ReturnType<typeof deferred<ScriptedTurn>>>();
  private readonly arrivals = new Map<string, ReturnType<typeof deferred<void>>>();

  /** The step a subagent's request gets: wait for the test's reply. */
  answer(goal: string): Promise<ScriptedTurn> {
    this.arrival(goal).open();
    return this.reply(goal).promise;
  }

  arrived(goal: string): Promise<void> {
    return this.arrival(goal).promise;
  }

  release(goal: string, reply: ScriptedTurn): void {
    this.reply(goal).open(reply);
  }

  private reply(goal: string) {
    let entry = this.replies.get(goal);
    if (!entry) {
      entry = deferred<ScriptedTurn>(`the test to release "${goal}"`);
      this.replies.set(goal, entry);
    }
    return entry;
  }

  private arrival(goal: string) {
    let entry = this.arrivals.get(goal);
    if (!entry) {
      entry = deferred<void>(`subagent "${goal}" to call the model`);
      // A test that never waits for an arrival must not see an unhandled rejection.
      entry.promise.catch(() => {});
      this.arrivals.set(goal, entry);
    }
    return entry;
  }
}

export interface ParentScript {
  /** What the parent does on the user's message: usually a delegate_task call. */
  onUser(req: RecordedRequest): ScriptedTurn | Promise<ScriptedTurn>;
  /** After a tool result (default: repeat it as text). */
  onToolResult?(req: RecordedRequest, result: string): ScriptedTurn | Promise<ScriptedTurn>;
}

/**
 * A fake-provider step: subagents wait in `held`; the parent follows `parent`, and answers a
 * background result turn with "parent read: <that turn's text>".
 */
export function backgroundScript(
  held: HeldChildren,
  parent: ParentScript,
): (req: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn> {
  return (req) => {
    const goal = childGoal(req);
    if (goal !== undefined) return held.answer(goal);
    const results = lastToolResults(req);
    if (results.length > 0) {
      return parent.onToolResult?.(req, results[0]!) ?? { text: `tool said: ${results[0]}` };
    }
    const user = lastUserText(req);
    if (user.startsWith("[Background subagent result")) return { text: `parent read: ${user}` };
    return parent.onUser(req);
  };
}

/** A parent that dispatches `args` with background: true, then reports the tool's answer. */
export function dispatching(args: Record<string, unknown>): ParentScript {
  return { onUser: () => ({ toolCalls: [{ name: "delegate_task", arguments: { ...args, background: true } }] }) };
}

/**
 * A surface's parent: "dispatch" starts `goal` in the background, "wait here" holds the parent's
 * own turn until `held` releases "@parent", anything else is answered "answered: <text>".
 */
export function chatParent(held: HeldChildren, goal: string): ParentScript {
  return {
    onUser: (req) => {
      const text = lastUserText(req);
      if (text === "dispatch") return { toolCalls: [{ name: "delegate_task", arguments: { goal, background: true } }] };
      if (text === "wait here") return held.answer("@parent");
      return { text: `answered: ${text}` };
    },
    onToolResult: () => ({ text: "Started it in the background." }),
  };
}
