/**
 * Numbers a context-overflow error gives away: the model's real context limit (worth caching,
 * since it is confirmed by the provider) and how many output tokens would still fit.
 */

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/,/g, ""));
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

const N = "(\\d[\\d,]*)";

const LIMIT_PATTERNS = [
  new RegExp(`maximum context length is ${N}`),
  new RegExp(`context (?:window|length|limit) (?:is|of) ${N}`),
  new RegExp(`${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`),
  new RegExp(`>\\s*${N}(?:\\s*(?:tokens?\\s*)?maximum)`),
  new RegExp(`context length exceeded:?\\s*${N}\\s*>\\s*${N}`),
  new RegExp(`(?:limit|maximum) of ${N} tokens`),
];

/** The context window the provider says the model has, in tokens. */
export function parseContextLimit(text: string): number | undefined {
  for (const pattern of LIMIT_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return num(match[match.length - 1]);
  }
  return undefined;
}

/**
 * Output tokens that fit beside the prompt: from "input + max_tokens > limit" (Anthropic) or
 * "maximum context length is L ... (P in the messages, C in the completion)" (OpenAI).
 */
export function parseAvailableOutputTokens(text: string): number | undefined {
  const sum = new RegExp(`${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`).exec(text);
  if (sum) {
    const input = num(sum[1]);
    const limit = num(sum[3]);
    if (input !== undefined && limit !== undefined && limit > input) return limit - input;
  }
  const limit = num(new RegExp(`maximum context length is ${N}`).exec(text)?.[1]);
  const prompt = num(new RegExp(`${N} in the messages`).exec(text)?.[1]);
  if (limit !== undefined && prompt !== undefined && limit > prompt) return limit - prompt;
  return undefined;
}
