/**
 * Slash commands an editor session understands. Each one either answers with text (shown as
 * the agent's message, no model call) or turns into a prompt for the agent.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import { estimateTokens } from "../util/tokens.js";
import type { AcpSession } from "./session.js";

const COMMANDS: ReadonlyArray<{ name: string; description: string; hint?: string }> = [
  { name: "help", description: "List the commands" },
  { name: "model", description: "Show or switch the model", hint: "model name" },
  { name: "tools", description: "List the tools this session may use" },
  { name: "context", description: "How full the context window is" },
  { name: "compact", description: "Summarise the conversation to free context", hint: "what to keep (optional)" },
  { name: "steer", description: "Add a note the running turn reads with its next tool result", hint: "note" },
  { name: "queue", description: "Run this prompt after the current turn", hint: "prompt" },
  { name: "reset", description: "Start a fresh conversation in this session" },
];

export const AVAILABLE_COMMANDS: AvailableCommand[] = COMMANDS.map(({ name, description, hint }) => ({
  name,
  description,
  ...(hint ? { input: { hint } } : {}),
}));

/** Text to show, a prompt to run instead, or undefined when `text` is not one of our commands. */
export async function runSlashCommand(
  session: AcpSession,
  text: string,
): Promise<string | { prompt: string } | undefined> {
  const match = /^\/([a-z-]+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return undefined;
  const name = match[1]!;
  const arg = (match[2] ?? "").trim();
  switch (name) {
    case "help":
      return COMMANDS.map((c) => `/${c.name}${c.hint ? ` <${c.hint}>` : ""} — ${c.description}`).join("\n");
    case "model":
      return modelCommand(session, arg);
    case "tools":
      return toolsCommand(session);
    case "context":
      return contextCommand(session);
    case "compact":
      return compactCommand(session, arg);
    case "steer":
      if (!arg) return "Usage: /steer <note>";
      return session.steer(arg) ? "Noted: the running turn reads it with its next tool result." : { prompt: arg };
    case "queue":
      if (!arg) return "Usage: /queue <prompt>";
      return session.queue(arg) ? "Queued: it runs when the current turn ends." : { prompt: arg };
    case "reset":
      await session.idle();
      session.reset();
      return "Started a fresh conversation.";
    default:
      return undefined;
  }
}

async function modelCommand(session: AcpSession, wanted: string): Promise<string> {
  const models = session.configOptions().find((option) => option.id === "model");
  const choices =
    models && models.type === "select" ? models.options.flatMap((o) => ("value" in o ? [o.value] : [])) : [];
  if (!wanted) return `Model: ${session.model}\nAvailable: ${choices.join(", ")}`;
  if (!choices.includes(wanted)) return `Unknown model "${wanted}". Available: ${choices.join(", ")}`;
  await session.idle();
  session.setModel(wanted);
  return `Model set to ${wanted}.`;
}

async function toolsCommand(session: AcpSession): Promise<string> {
  const { resolveToolNames } = await import("../agent/options.js");
  const names = await resolveToolNames(session.currentAgent.options);
  return names.length ? `Tools (${session.mode} mode): ${names.join(", ")}` : "No tools are enabled.";
}

async function contextCommand(session: AcpSession): Promise<string> {
  const agent = session.currentAgent;
  const window = await agent.contextWindow();
  const used = estimateTokens(agent.messages);
  const share = window > 0 ? ` (${Math.round((used / window) * 100)}%)` : "";
  return `Context: about ${used} of ${window} tokens${share}, ${agent.messages.length} messages in memory.`;
}

async function compactCommand(session: AcpSession, focus: string): Promise<string> {
  await session.idle();
  const result = await session.currentAgent.compress(focus || undefined);
  session.remember();
  if (!result) return "Nothing to compact yet.";
  if (!result.compressed) return "The conversation is already as small as it gets.";
  return `Compacted: about ${result.tokensBefore} → ${result.tokensAfter} tokens.`;
}
