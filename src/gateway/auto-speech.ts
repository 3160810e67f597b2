/**
 * `voice.auto_tts`: whoever speaks to the agent is answered in speech too. When the turn's
 * message carried a voice note and the model did not already speak its answer with
 * text_to_speech, the answer's text is synthesised with the `tts.*` provider and sent after it
 * as an audio file (a voice note on Telegram). A failure is logged; the text answer stands.
 */
import { join } from "node:path";
import type { Agent } from "../agent/agent.js";
import { runtimeTtsHttp, ttsSettingsFromConfig } from "../runtime/tts.js";
import { extractOutboundFiles, type OutboundFile } from "./attachments.js";
import type { GatewayRunner } from "./runner.js";
import type { InboundMessage } from "./types.js";

export interface SpeechWatch {
  /** The model spoke this turn itself (a text_to_speech call that succeeded). */
  readonly spoke: boolean;
  stop(): void;
}

/** Whether this turn should end with speech, watching for the model's own text_to_speech call; undefined when not. */
export function watchForSpeech(
  runner: GatewayRunner,
  agent: Agent,
  messages: InboundMessage[],
): SpeechWatch | undefined {
  if (!runner.runtime.config.voice.auto_tts) return undefined;
  if (!messages.some((m) => m.attachments?.some((a) => a.kind === "audio"))) return undefined;
  let spoke = false;
  const stop = agent.on((event) => {
    if (event.type === "tool_end" && event.name === "text_to_speech" && !event.failed) spoke = true;
  });
  return {
    get spoke() {
      return spoke;
    },
    stop,
  };
}

/** The answer as an audio file to send, or undefined (nothing to say, or the synthesis failed). */
export async function speakAnswer(runner: GatewayRunner, reply: string): Promise<OutboundFile | undefined> {
  const text = spokenText(extractOutboundFiles(reply).text);
  if (!text) return undefined;
  const { speak } = await import("../tools/tts/synthesize.js");
  const { runtime } = runner;
  const result = await speak({
    text,
    outputDir: join(runtime.home, "cache", "audio"),
    home: runtime.home,
    settings: ttsSettingsFromConfig(runtime.config),
    env: process.env,
    http: runtimeTtsHttp,
  });
  if (!result.ok) {
    runner.log(`voice.auto_tts: the answer could not be spoken: ${result.error}`);
    return undefined;
  }
  return { path: result.path, image: false };
}

/** Markdown read aloud is noise: code blocks go, and link, emphasis and heading marks are dropped. */
export function spokenText(markdown: string): string {
  return markdown
    .replaceAll(/```[\s\S]*?```/g, " ")
    .replaceAll(/!?\[([^\]\n]*)\]\([^)\s]*\)/g, "$1")
    .replaceAll(/^[ \t]*#{1,6}[ \t]+/gm, "")
    .replaceAll(/[*_`~]+/g, "")
    .replaceAll(/[ \t]+/g, " ")
    .replaceAll(/\n{3,}/g, "\n\n")
    .trim();
}
