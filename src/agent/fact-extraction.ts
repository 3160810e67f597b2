/**
 * Durable facts in what the user says, found without a model call: statements about
 * themselves, their preferences, their tools and their project ("I prefer tabs", "my editor is
 * Helix", "we deploy with Fly", "remember that the staging DB is read-only"), rewritten as
 * declarative third-person facts. Questions, requests and anything that looks like an
 * instruction to the agent are left alone; so are secrets and threat patterns.
 */
import { redactSecrets } from "../util/redact.js";
import { scanForThreats } from "../util/threats.js";

export interface ExtractedFact {
  text: string;
  /** Facts with the same subject replace each other (a new editor replaces the old one). */
  subject: string;
}

const MAX_SENTENCE = 240;
/** Longer messages are mostly pasted material (logs, files), whose "I ..." lines are not the user's. */
const MAX_MESSAGE = 4000;
const MIN_WORDS = 3;

const VERB_FORMS: Record<string, string> = {
  prefer: "prefers",
  like: "likes",
  love: "loves",
  hate: "hates",
  dislike: "dislikes",
  use: "uses",
  work: "works",
  live: "lives",
  run: "runs",
  develop: "develops",
  write: "writes",
  speak: "speaks",
  own: "owns",
  deploy: "deploys",
  build: "builds",
  maintain: "maintains",
  study: "studies",
  teach: "teaches",
};
const ADVERBS = new Set(["always", "never", "usually", "mostly", "often", "mainly", "generally"]);

function sentences(message: string): string[] {
  return message
    .replace(/```[\s\S]*?```/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** "my" → "the user's", "I" → "the user", for the rest of a sentence. */
function thirdPerson(text: string): string {
  return text
    .replace(/\bI am\b|\bI'm\b/gi, "the user is")
    .replace(/\bI\b/g, "the user")
    .replace(/\bmy\b/gi, "the user's")
    .replace(/\bme\b/gi, "the user")
    .replace(/\bmine\b/gi, "the user's");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function clean(text: string): string {
  return text.replace(/\s+/g, " ").replace(/[.!\s]+$/, "");
}

function subjectKey(prefix: string, words: string): string {
  const key = words
    .toLowerCase()
    .replace(/[^\p{L}\p{N} ]/gu, "")
    .trim()
    .replace(/\s+/g, "_");
  return key ? `${prefix}.${key}` : "";
}

/** "never use semicolons" → "never uses semicolons"; undefined unless the verb says something durable. */
function verbPhrase(rest: string): string | undefined {
  const words = rest.split(/\s+/);
  const adverb = ADVERBS.has(words[0]!.toLowerCase()) ? words.shift()!.toLowerCase() : undefined;
  const form = VERB_FORMS[(words.shift() ?? "").toLowerCase()];
  if (!form || words.length === 0) return undefined;
  return `${adverb ? `${adverb} ` : ""}${form} ${thirdPerson(words.join(" "))}`;
}

function fromSentence(raw: string): ExtractedFact | undefined {
  const sentence = clean(raw);
  if (sentence.endsWith("?") || sentence.length > MAX_SENTENCE) return undefined;
  if (sentence.split(/\s+/).length < MIN_WORDS) return undefined;
  let match = /^(?:please\s+)?(?:remember|note|keep in mind|don't forget|fyi)(?:\s+that)?[:,]?\s+(.+)$/i.exec(sentence);
  if (match) {
    const inner = fromSentence(match[1]!);
    return inner ?? { text: capitalize(thirdPerson(match[1]!)), subject: "" };
  }
  match = /^(?:my name is|call me|i go by)\s+(.+)$/i.exec(sentence);
  if (match) return { text: `The user's name is ${match[1]}`, subject: "user.name" };
  match = /^my\s+((?:[\p{L}\p{N}-]+\s+){0,3}?[\p{L}\p{N}-]+)\s+(is|are)\s+(.+)$/iu.exec(sentence);
  if (match) {
    return {
      text: `The user's ${match[1]} ${match[2]} ${thirdPerson(match[3]!)}`,
      subject: subjectKey("user", match[1]!),
    };
  }
  match = /^our\s+((?:[\p{L}\p{N}-]+\s+){0,3}?[\p{L}\p{N}-]+)\s+(is|are)\s+(.+)$/iu.exec(sentence);
  if (match) {
    return { text: `The user's team's ${match[1]} ${match[2]} ${match[3]}`, subject: subjectKey("team", match[1]!) };
  }
  match = /^(?:i am|i'm)\s+(?:a|an)\s+(.+)$/i.exec(sentence);
  if (match) return { text: `The user is a ${thirdPerson(match[1]!)}`, subject: "" };
  match = /^(?:i am|i'm)\s+(based in|from|located in|working on|in the)\s+(.+)$/i.exec(sentence);
  if (match) return { text: `The user is ${match[1]} ${thirdPerson(match[2]!)}`, subject: "" };
  match = /^(i|we)\s+(.+)$/i.exec(sentence);
  if (match) {
    const action = verbPhrase(match[2]!);
    if (!action) return undefined;
    const who = match[1]!.toLowerCase() === "i" ? "The user" : "The user's team";
    return { text: `${who} ${action}`, subject: "" };
  }
  return undefined;
}

/** Whether a fact may be stored: no secrets (a redacted value is not worth keeping) and no threats. */
export function acceptableFact(text: string): boolean {
  if (redactSecrets(text) !== text) return false;
  return scanForThreats(text, "strict").length === 0;
}

/** The facts stated in one user message, in order, each at most once. */
export function extractFacts(message: string): ExtractedFact[] {
  const found = new Map<string, ExtractedFact>();
  if (message.length > MAX_MESSAGE) return [];
  for (const sentence of sentences(message)) {
    const fact = fromSentence(sentence);
    if (!fact) continue;
    const text = clean(fact.text);
    if (!acceptableFact(text)) continue;
    found.set(text.toLowerCase(), { text, subject: fact.subject });
  }
  return [...found.values()];
}
