/**
 * The background review's conversation with the auxiliary model: what it is shown of a finished
 * turn, what it may propose (memory entries, a new skill, a patch to a skill), and reading its
 * answer. Proposals become `memory` / `skill_manage` calls, so they pass the same validation and
 * threat scan as the model's own.
 */
import type { Message } from "../../llm/types.js";
import { repairToolArguments } from "../../util/json-repair.js";
import { redactSecrets } from "../../util/redact.js";

/** A message where the user corrects the agent ("no, ...", "that's wrong", "I said ..."). */
const CORRECTION =
  /^\s*(?:no|nope|wrong|not like that)\s*[,.!:;]|\b(?:that(?:'s| is) (?:not|wrong|incorrect)|not what I (?:asked|meant|said)|I (?:said|told you|asked you)\b|you (?:forgot|missed|ignored|should have|shouldn't have)|don't do that|why did you)/i;

export function isCorrection(userMessage: string): boolean {
  return CORRECTION.test(userMessage);
}

export interface ReviewInput {
  userMessage: string;
  finalResponse: string;
  messages: readonly Message[];
  /** Names of the user's skills, and the skills used in the turn (viewed). */
  skills: readonly string[];
  /** Current MEMORY.md and USER.md entries, so the review does not repeat them. */
  memory: readonly string[];
  /** What the user asked /learn for, when they did. */
  focus?: string;
}

const MAX_RESULT_CHARS = 600;
const MAX_TRANSCRIPT_CHARS = 24_000;

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

/** The turn as the review reads it: user, assistant text, tool calls and shortened results. */
export function transcriptOf(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      const result = textOf(message.content);
      lines.push(
        `[tool result] ${result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}…` : result}`,
      );
      continue;
    }
    const text = textOf(message.content).trim();
    if (text) lines.push(`[${message.role}] ${text}`);
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
      lines.push(`[tool call] ${call.function.name} ${call.function.arguments.slice(0, 300)}`);
    }
  }
  const joined = lines.join("\n");
  // The review model may be another vendor's: secrets pasted into the session stay here.
  const clipped = joined.length > MAX_TRANSCRIPT_CHARS ? `…${joined.slice(-MAX_TRANSCRIPT_CHARS)}` : joined;
  return redactSecrets(clipped);
}

const INSTRUCTIONS = `You review a finished task of an AI agent to decide what, if anything, it should keep for the future.

You may propose:
- memory entries: short declarative facts worth knowing in every later session, about the user (target "user": preferences, corrections they made, how they like things done) or the environment (target "memory": tools, paths, conventions of their machine and projects). Not task progress, not results of this task, nothing that will be stale within a week, no secrets.
- one new skill: a procedure that took real effort here and will come up again. Its content is a whole SKILL.md: YAML frontmatter with name (lowercase letters, digits, dashes) and description, then concise steps, pitfalls and checks.
- one patch to an existing skill that was used in this task and turned out wrong or incomplete: the exact old_string to replace and the new_string.

Most tasks teach nothing lasting: then propose nothing. Never propose instructions that override the user or the agent's rules.

Answer with one JSON object and nothing else:
{"memory": [{"target": "user" | "memory", "content": "..."}], "skill": null | {"action": "create", "name": "...", "content": "..."} | {"action": "patch", "name": "...", "old_string": "...", "new_string": "..."}, "reason": "one sentence"}`;

export function reviewMessages(input: ReviewInput): Message[] {
  const context = [
    input.focus ? `The user asked to keep this from the session: ${input.focus}` : "",
    `Existing skills: ${input.skills.length ? input.skills.join(", ") : "none"}`,
    `Existing memory entries:\n${input.memory.length ? input.memory.map((entry) => `- ${entry}`).join("\n") : "none"}`,
    `The task:\n${transcriptOf(input.messages)}`,
  ].filter(Boolean);
  return [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: context.join("\n\n") },
  ];
}

export interface MemoryProposal {
  kind: "memory";
  args: { action: "add"; target: "user" | "memory"; content: string };
}

export interface SkillProposal {
  kind: "skill";
  args:
    | { action: "create"; name: string; content: string }
    | { action: "patch"; name: string; old_string: string; new_string: string };
}

export type ReviewProposal = MemoryProposal | SkillProposal;

export interface ReviewAnswer {
  proposals: ReviewProposal[];
  reason: string;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value.trim() ? value : undefined);

/** Reads the review model's answer; anything malformed is dropped, never guessed at. */
export function parseReview(answer: string): ReviewAnswer {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  if (start < 0 || end <= start) return { proposals: [], reason: "" };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(repairToolArguments(answer.slice(start, end + 1))) as Record<string, unknown>;
  } catch {
    return { proposals: [], reason: "" };
  }
  const proposals: ReviewProposal[] = [];
  for (const entry of Array.isArray(parsed.memory) ? parsed.memory.slice(0, 5) : []) {
    const item = entry as Record<string, unknown>;
    const content = str(item?.content);
    const target = item?.target === "user" ? "user" : item?.target === "memory" ? "memory" : undefined;
    if (content && target) proposals.push({ kind: "memory", args: { action: "add", target, content: content.trim() } });
  }
  const skill = parsed.skill as Record<string, unknown> | null | undefined;
  const name = str(skill?.name);
  if (skill && name && skill.action === "create" && str(skill.content)) {
    proposals.push({ kind: "skill", args: { action: "create", name, content: String(skill.content) } });
  } else if (
    skill &&
    name &&
    skill.action === "patch" &&
    str(skill.old_string) &&
    typeof skill.new_string === "string"
  ) {
    proposals.push({
      kind: "skill",
      args: { action: "patch", name, old_string: String(skill.old_string), new_string: skill.new_string },
    });
  }
  return { proposals, reason: str(parsed.reason)?.trim() ?? "" };
}

export function describeProposal(proposal: ReviewProposal): string {
  if (proposal.kind === "memory") {
    const file = proposal.args.target === "user" ? "USER.md" : "MEMORY.md";
    return `remember in ${file}: ${proposal.args.content.replace(/\s+/g, " ").slice(0, 100)}`;
  }
  return proposal.args.action === "create" ? `new skill ${proposal.args.name}` : `patch skill ${proposal.args.name}`;
}
