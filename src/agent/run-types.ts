/** What `Agent.runConversation` takes and returns. */
import type { Message, Usage } from "../llm/types.js";
import type { ToolContext } from "../tools/registry.js";

export interface RunOptions {
  /** Replaces the built system prompt for this session. */
  systemMessage?: string;
  /** Prior messages (OpenAI-style, without the system prompt) to continue from. */
  conversationHistory?: Message[];
  taskId?: string;
  /** Layered on top of the session's system prompt for this run only; never stored. */
  ephemeralSystemPrompt?: string;
  /** Answers approval prompts for this run instead of the agent's own callback. */
  requestApproval?: ToolContext["requestApproval"];
  /** Whether a person answers this run's prompts (overrides the agent's `interactive`). */
  interactive?: boolean;
  /** Answers clarify questions for this run instead of the agent's own callback. */
  clarify?: ToolContext["clarify"];
  /** Ask for a new reply, never one a provider kept from an identical request (/retry). */
  freshReply?: boolean;
}

export interface RunResult {
  finalResponse: string;
  messages: Message[];
  /** The session the run ended in (a child session when the run compressed the context). */
  sessionId: string;
  usage: Usage;
  apiCalls: number;
  toolCalls: number;
  interrupted: boolean;
  /** The loop ended with a final reply (not by the budget, an interrupt or an error). */
  completed: boolean;
  /**
   * Why the run ended: a final reply, the iteration budget (the answer is the model's summary
   * of where it got to), an interrupt, or an error.
   */
  stopReason: "completed" | "budget" | "interrupted" | "error";
  model: string;
  provider: string;
  error?: string;
}
