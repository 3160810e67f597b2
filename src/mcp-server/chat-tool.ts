/**
 * The `chat` tool: one message to the agent, in a new session or a stored one, answered when
 * the agent's run ends. One run per session at a time; a cancelled request interrupts the run.
 */
import type { Agent } from "../agent/agent.js";
import type { RunResult } from "../agent/run-types.js";
import type { AgentRequest, HermesRuntime } from "../runtime/runtime.js";
import { z } from "../util/schema/index.js";
import { toolError } from "./results.js";
import { type ServerTool, serverTool } from "./server-tool.js";
import { noSuchSession, SESSION_ID } from "./session-tools.js";

const MESSAGE_CHARS = 100_000;

export interface ChatToolOptions {
  runtime: HermesRuntime;
  /** What the agent's own tools are: the toolsets this server exposes. */
  toolsets: readonly string[];
  platform: string;
}

export function chatTool(options: ChatToolOptions): ServerTool {
  const { runtime, platform } = options;
  const busy = new Set<string>();
  const request = (sessionId?: string): AgentRequest => ({
    platform,
    toolsets: [...options.toolsets],
    interactive: false,
    ...(sessionId ? { sessionId } : {}),
  });

  return serverTool({
    name: "chat",
    description:
      "Send a message to the Hermes agent and get its answer once it has finished working (it may use its tools on the way). " +
      "Omit session_id to start a new session; pass the session_id from an earlier answer (or from sessions_list) to continue that conversation.",
    parameters: z.object({
      message: z.string().min(1).max(MESSAGE_CHARS).describe("What to say to the agent"),
      session_id: SESSION_ID.optional().describe("Continue this session; omit to start a new one"),
    }),
    run: async (args, signal) => {
      const wanted = args.session_id;
      if (wanted && !(await runtime.store.getSession(wanted))) return noSuchSession(wanted);
      if (wanted && busy.has(wanted)) {
        return toolError(
          `Session "${wanted}" is still answering an earlier message; call again once that call returns.`,
        );
      }
      const agent: Agent = wanted ? runtime.agentFor(`mcp:${wanted}`, request(wanted)) : runtime.createAgent(request());
      const key = wanted ?? agent.sessionId;
      busy.add(key);
      const interrupt = () => agent.interrupt("the MCP client cancelled the request");
      signal.addEventListener("abort", interrupt, { once: true });
      let result: RunResult;
      try {
        result = await agent.runConversation(args.message);
      } catch (error) {
        return toolError(`The agent failed: ${(error as Error).message}. Session: ${agent.sessionId}.`);
      } finally {
        signal.removeEventListener("abort", interrupt);
        busy.delete(key);
      }
      if (!result.finalResponse) {
        const why = result.error ?? (result.interrupted ? "the run was interrupted" : "the agent gave no answer");
        return toolError(`No answer: ${why}. Session: ${result.sessionId}; call chat with it to try again.`);
      }
      return {
        content: [
          { type: "text", text: result.finalResponse },
          { type: "text", text: `session_id: ${result.sessionId}` },
        ],
      };
    },
  });
}
