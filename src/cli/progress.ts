/** One-line progress on stderr for one-shot runs: tool calls with their duration, and status notes. */
import type { Agent } from "../agent/agent.js";

const DEFAULT_EMOJI = "⚙️";

export function attachProgress(agent: Agent, options: { verbose: boolean }): () => void {
  const emojiOf = (name: string) => agent.options.registry?.get(name)?.emoji ?? DEFAULT_EMOJI;
  const previews = new Map<string, string>();
  return agent.on((event) => {
    switch (event.type) {
      case "tool_start":
        previews.set(event.callId, event.preview);
        if (options.verbose) process.stderr.write(`${emojiOf(event.name)} ${event.name}: ${event.preview} …\n`);
        break;
      case "tool_end": {
        const seconds = (event.durationMs / 1000).toFixed(1);
        const mark = event.failed ? " ✗" : "";
        const preview = previews.get(event.callId);
        previews.delete(event.callId);
        process.stderr.write(
          `${emojiOf(event.name)} ${event.name}${preview ? `: ${preview}` : ""} (${seconds}s)${mark}\n`,
        );
        break;
      }
      case "status":
        process.stderr.write(`… ${event.message}\n`);
        break;
      case "reasoning_delta":
        if (options.verbose) process.stderr.write(event.text);
        break;
      default:
        break;
    }
  });
}
