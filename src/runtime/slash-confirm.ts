/**
 * The question before a slash command that throws work away (/new, /clear, /undo) or costs money
 * (/reload-mcp changes the tool list, which discards the provider's prompt cache): go ahead once,
 * always (go ahead and never ask again, saved to config.yaml), or cancel. Shared by the terminal
 * and the gateway; each surface shows the question its own way.
 */
import type { HermesConfig } from "../state/config-schema.js";

export type ConfirmKind = "destructive" | "mcp_reload";
export type ConfirmAnswer = "once" | "always" | "cancel";

const KEYS = { destructive: "destructive_slash_confirm", mcp_reload: "mcp_reload_confirm" } as const;

/** Any of these among a command's arguments answers the question in advance, for that one run. */
export const SKIP_WORDS: readonly string[] = ["now", "--yes", "-y"];

/** The config key that turns the question off, e.g. `approvals.destructive_slash_confirm`. */
export function confirmKey(kind: ConfirmKind): string {
  return `approvals.${KEYS[kind]}`;
}

/** The arguments without any skip word, and whether one was there. */
export function takeSkipWord(args: string): { args: string; skip: boolean } {
  const words = args.split(/\s+/).filter(Boolean);
  const rest = words.filter((word) => !SKIP_WORDS.includes(word.toLowerCase()));
  return { args: rest.join(" "), skip: rest.length < words.length };
}

export function wantsConfirmation(config: HermesConfig, kind: ConfirmKind): boolean {
  return config.approvals[KEYS[kind]] !== false;
}

/**
 * The "always" answer: stop asking in this process at once, and in config.yaml for later ones.
 * Returns what to tell the user (a failed write says how to set the key by hand).
 */
export async function stopAsking(home: string, config: HermesConfig, kind: ConfirmKind): Promise<string> {
  config.approvals[KEYS[kind]] = false;
  const key = confirmKey(kind);
  try {
    // The YAML editor loads only when someone answers "always".
    const { setConfigValue } = await import("../state/config.js");
    setConfigValue(home, key, "false");
    return `Saved ${key}: false to config.yaml; this is not asked again.`;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `Could not save ${key}: false to config.yaml (${reason}); set it with: hermes config set ${key} false`;
  }
}

export interface ConfirmGate {
  kind: ConfirmKind;
  /** The command's arguments as typed (a skip word among them answers in advance). */
  args: string;
  config: HermesConfig;
  home: string;
  /** The question to ask; undefined when the command would lose nothing (an empty conversation). */
  question(): Promise<string | undefined>;
  /** Shows the question; undefined where nobody can answer (piped input), which means go ahead. */
  ask: ((question: string) => Promise<ConfirmAnswer>) | undefined;
}

export interface ConfirmOutcome {
  proceed: boolean;
  /** The arguments without the skip word. */
  args: string;
  /** What to tell the user: why nothing happened, or that the question was turned off. */
  note?: string;
}

/** For surfaces that can wait for the answer in place (the terminal): whether the command goes ahead. */
export async function passConfirmGate(gate: ConfirmGate): Promise<ConfirmOutcome> {
  const { args, skip } = takeSkipWord(gate.args);
  if (skip || !gate.ask || !wantsConfirmation(gate.config, gate.kind)) return { proceed: true, args };
  const question = await gate.question();
  if (question === undefined) return { proceed: true, args };
  const answer = await gate.ask(question);
  if (answer === "cancel") return { proceed: false, args, note: "Cancelled: nothing changed." };
  if (answer === "always") return { proceed: true, args, note: await stopAsking(gate.home, gate.config, gate.kind) };
  return { proceed: true, args };
}
