/** What a slash command may do to the interactive session it runs in. */

import type { Message } from "../../llm/types.js";
import type { ConfirmAnswer, ConfirmKind } from "../../runtime/slash-confirm.js";
import type { PermissionMode } from "../../tools/permissions/gate.js";
import type { Skill } from "../../tools/skills/discovery.js";
import type { RecapSettings } from "../resume-recap.js";
import type { Runtime } from "../runtime.js";
import type { DisplayOptions } from "../tui/display-options.js";
import type { SlashRegistry } from "./registry.js";

export const TOOL_PROGRESS_MODES = ["off", "new", "all", "verbose"] as const;
export type ToolProgressMode = (typeof TOOL_PROGRESS_MODES)[number];

export interface DisplaySettings {
  showReasoning: boolean;
  toolProgress: ToolProgressMode;
  /** `display.streaming`: show replies as they arrive; false shows each reply once it is complete. */
  streaming: boolean;
  /** `display.show_cost`: the estimated cost in the status bar. */
  showCost: boolean;
  /** `display.compact`: no blank line between exchanges and a one-line header. */
  compact?: boolean;
  /** `display.bell_on_complete`: ring the terminal bell when a turn finishes. */
  bellOnComplete?: boolean;
  /** `display.resume_*`: what a resumed session shows of itself. */
  resume?: RecapSettings;
  /** The other `display.*` settings of the terminal UI (defaults when unset). */
  options?: DisplayOptions;
}

export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  apiCalls: number;
  toolCalls: number;
  turns: number;
  /** USD; undefined when the model's price is unknown. */
  cost: number | undefined;
}

export interface ContextStatus {
  tokens: number;
  window: number;
  percent: number;
}

/** What a goal command tells the user, and the turn it starts (the goal's next step), if any. */
export interface GoalAnswer {
  message: string;
  start?: string;
}

/** The session's standing goal (`/goal`). */
export interface GoalControl {
  status(): string;
  set(text: string): GoalAnswer;
  pause(): string;
  /** Active again with a fresh turn budget. */
  resume(): GoalAnswer;
  clear(): string;
}

export interface SlashContext {
  /** Show lines of text in the transcript. */
  print(text: string): void;
  /**
   * Asks go ahead / always / cancel before a command that loses work or costs money; absent where
   * nobody can answer (piped input), and then such commands run unasked.
   */
  readonly askConfirm?: ((question: string, kind: ConfirmKind) => Promise<ConfirmAnswer>) | undefined;
  readonly busy: boolean;
  readonly runtime: Runtime;
  readonly display: DisplaySettings;
  readonly commands: SlashRegistry<SlashContext>;
  /** Start a fresh session with the same settings. */
  newSession(): Promise<void>;
  clearScreen(): void;
  /** The conversation as the next turn will see it (loaded from the store after a resume). */
  messages(): Promise<Message[]>;
  /** Drop the last user turn and everything after it; returns its text, or undefined when there is none. */
  undo(): Promise<string | undefined>;
  /** Send a message now, or after the running turn when busy. */
  send(text: string): Promise<void>;
  /** Run a message after the current turn (and anything queued before it). */
  enqueue(text: string): void;
  /** Interrupt the running turn. */
  stop(): void;
  resume(sessionId: string): Promise<void>;
  /** Switch model (and provider) for the rest of this session. */
  switchModel(model: string, provider?: string): Promise<void>;
  setYolo(on: boolean): void;
  /** The session's permission mode: plan (read-only), ask, auto-edit or yolo. */
  readonly permissionMode: PermissionMode;
  setMode(mode: PermissionMode): void;
  /** Summarise older turns now (optionally around a topic); returns what happened, for the user. */
  compress(focus?: string): Promise<string>;
  usage(): SessionUsage;
  contextStatus(): Promise<ContextStatus>;
  exit(): void;
  /** Installed skills (user and project). */
  skills(): Skill[];
  readonly goals: GoalControl;
}
