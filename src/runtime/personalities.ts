/**
 * `personalities` (the original's key): named instructions a conversation can take on with
 * `/personality NAME` in the terminal or a chat, and drop with `/personality none`. A few come
 * built in; config.yaml adds more or replaces one by name. An entry is text, or a mapping
 * with `system_prompt` (or `prompt`) and an optional `description`.
 */

export interface Personality {
  name: string;
  prompt: string;
  description: string;
}

const BUILT_IN: Record<string, string> = {
  helpful: "Be warm and helpful: explain what you do and offer the next step the user may want.",
  concise: "Be concise: answer in as few words as the task allows, with no preamble and no recap.",
  technical: "Be technical and exact: precise terms, concrete details, numbers and references where they matter.",
  creative: "Be creative: offer unexpected angles and several options before settling on one.",
  teacher: "Teach: explain step by step with small examples, and check understanding before moving on.",
};

function describe(prompt: string): string {
  const first = prompt.split(/(?<=[.!?])\s/)[0] ?? prompt;
  return first.length > 70 ? `${first.slice(0, 69)}…` : first;
}

/** The built-in personalities with config.yaml's on top; `problem` hears about unusable entries. */
export function personalities(configured: Record<string, unknown>, problem: (message: string) => void): Personality[] {
  const byName = new Map<string, Personality>();
  for (const [name, prompt] of Object.entries(BUILT_IN))
    byName.set(name, { name, prompt, description: describe(prompt) });
  for (const [raw, entry] of Object.entries(configured)) {
    const name = raw.trim().toLowerCase();
    const record = entry && typeof entry === "object" ? (entry as Record<string, unknown>) : undefined;
    const prompt = typeof entry === "string" ? entry : (record?.system_prompt ?? record?.prompt);
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || name === "none" || typeof prompt !== "string" || !prompt.trim()) {
      problem(
        `personalities.${raw}: needs a name of letters, digits, - or _ (not "none") and the instructions as text`,
      );
      continue;
    }
    const description = typeof record?.description === "string" ? record.description : describe(prompt.trim());
    byName.set(name, { name, prompt: prompt.trim(), description });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export type PersonalityChoice = { kind: "list" } | { kind: "set"; personality: Personality } | { kind: "clear" };

/** What `/personality ARGS` asks for, or the reply for a name nobody knows. */
export function choosePersonality(args: string, known: readonly Personality[]): PersonalityChoice | string {
  const name = args.trim().toLowerCase();
  if (!name) return { kind: "list" };
  if (name === "none" || name === "off" || name === "default") return { kind: "clear" };
  const personality = known.find((p) => p.name === name);
  if (!personality) return `No personality "${name}". Known: ${known.map((p) => p.name).join(", ")}, none.`;
  return { kind: "set", personality };
}

/** The listing `/personality` shows, marking the one in use. */
export function listPersonalities(known: readonly Personality[], current: string | undefined): string {
  const lines = known.map((p) => `${p.name === current ? "*" : " "} ${p.name} — ${p.description}`);
  return [`Personalities (/personality NAME, /personality none):`, ...lines].join("\n");
}

/** `display.personality`: the personality conversations start with, when it names a known one. */
export function startingPersonality(
  wanted: string,
  configured: Record<string, unknown>,
  notice: (message: string) => void,
): { name: string; prompt: string } | undefined {
  if (!wanted.trim()) return undefined;
  const choice = choosePersonality(wanted, personalities(configured, notice));
  if (typeof choice === "string") {
    notice(`display.personality: ${choice}`);
    return undefined;
  }
  return choice.kind === "set" ? { name: choice.personality.name, prompt: choice.personality.prompt } : undefined;
}
