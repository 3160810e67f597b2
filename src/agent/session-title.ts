/** Short session titles written by the auxiliary model (task `title`) from a session's first exchange. */
import { redactSecrets } from "../util/redact.js";
import type { AuxiliaryClient } from "./auxiliary.js";

const TITLE_INSTRUCTIONS =
  "Name the conversation below in 3 to 7 words, the way a person would label it in a list of chats. " +
  "Reply with the title only: no quotes, no trailing period, no prefix such as 'Title:'.";
const MAX_EXCERPT_CHARS = 1_500;
export const MAX_TITLE_CHARS = 60;

export type TitleFn = (userText: string, reply: string, signal: AbortSignal) => Promise<string>;

/** The title in a model's reply: its first line without quotes, markup or a `Title:` label; "" if none. */
export function cleanTitle(reply: string): string {
  const firstLine = reply.trim().split("\n")[0] ?? "";
  const title = firstLine
    .replace(/^\s*(?:#+\s*)?(?:title\s*:\s*)?/i, "")
    .replace(/^[\s"'`*_“”‘’]+|[\s"'`*_“”‘’.]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : title;
}

/** The title instructions, asking for `language` when one is set (`auxiliary.title.language`). */
export function titleInstructions(language = ""): string {
  const wanted = language.trim();
  return wanted ? `${TITLE_INSTRUCTIONS} Write the title in ${wanted}.` : TITLE_INSTRUCTIONS;
}

export function titleWithAuxiliary(
  getClient: () => Promise<AuxiliaryClient>,
  language: () => string = () => "",
): TitleFn {
  return async (userText, reply, signal) => {
    const client = await getClient();
    // The title model may be another vendor's: keys pasted into the chat stay here.
    const excerpt = redactSecrets(
      `User: ${userText.slice(0, MAX_EXCERPT_CHARS)}\n\nAssistant: ${reply.slice(0, MAX_EXCERPT_CHARS)}`,
    );
    const answer = await client.complete(
      "title",
      [
        { role: "system", content: titleInstructions(language()) },
        { role: "user", content: excerpt },
      ],
      { maxTokens: 32, signal },
    );
    const title = cleanTitle(answer);
    if (!title) throw new Error("the title model gave no title");
    return title;
  };
}
