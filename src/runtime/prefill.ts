/**
 * `prefill_messages_file` (or HERMES_PREFILL_MESSAGES_FILE, which wins): a JSON array of
 * `{role, content}` messages sent after the system prompt in every request, for few-shot
 * priming. They are never stored in sessions, logs or trajectories. A relative path is under
 * $HERMES_HOME; a missing or malformed file is reported and ignored.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { Message } from "../llm/types.js";

const ROLES = new Set(["system", "user", "assistant"]);

function resolvePath(file: string, home: string): string {
  if (file.startsWith("~/")) return join(homedir(), file.slice(2));
  return isAbsolute(file) ? file : join(home, file);
}

/** Why `value` is not a list of prefill messages, or undefined. */
function problemWith(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "it must hold a JSON array of {role, content} messages";
  for (const [i, item] of value.entries()) {
    const message = item as { role?: unknown; content?: unknown } | null;
    if (!message || typeof message !== "object") return `entry ${i} is not an object`;
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      return `entry ${i} has role ${JSON.stringify(message.role)} (system, user or assistant)`;
    }
    if (typeof message.content !== "string") return `entry ${i} has no text content`;
  }
  return undefined;
}

export function loadPrefillMessages(
  configured: string,
  home: string,
  notice: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Message[] | undefined {
  const file = env.HERMES_PREFILL_MESSAGES_FILE?.trim() || configured.trim();
  if (!file) return undefined;
  const path = resolvePath(file, home);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : (error as Error).message;
    notice(`prefill messages file ${path} is not used: ${reason}`);
    return undefined;
  }
  const problem = problemWith(value);
  if (problem) {
    notice(`prefill messages file ${path} is not used: ${problem}`);
    return undefined;
  }
  const messages = (value as Array<{ role: Message["role"]; content: string }>).map(
    ({ role, content }) => ({ role, content }) as Message,
  );
  return messages.length > 0 ? messages : undefined;
}
