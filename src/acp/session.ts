/**
 * One editor session: an agent bound to a stored session, its mode and model, the MCP
 * servers the editor gave it, and the turns it runs (one at a time; /queue adds to the line,
 * /steer talks to the running turn).
 */
import type { ContentBlock, StopReason } from "@agentclientprotocol/sdk/unstable";
import type { Agent } from "../agent/agent.js";
import type { RunResult } from "../agent/run-types.js";
import type { ContentPart } from "../llm/types.js";
import type { HermesRuntime } from "../runtime/runtime.js";
import type { ApprovalAnswer, ApprovalRequest } from "../tools/registry.js";
import { log } from "../util/log.js";
import type { ClientBridge } from "./client-bridge.js";
import { EDITOR_SESSION_SERVICE, type EditorSession } from "./editor-tools.js";
import { configOptions, type ModeId, modeState, PLAN_TOOLSET } from "./modes.js";
import { promptInput } from "./prompt-content.js";
import type { SessionIndex } from "./session-index.js";
import type { SessionMcp } from "./session-mcp.js";
import { AVAILABLE_COMMANDS, runSlashCommand } from "./slash-commands.js";
import { toolKind } from "./tool-kinds.js";
import { sendCompaction, TurnUpdates } from "./turn-updates.js";

export interface SessionSetup {
  id: string;
  storeId: string | undefined;
  cwd: string;
  mode: ModeId;
  model: string;
  mcp: SessionMcp | undefined;
}

export interface SessionServices {
  runtime: HermesRuntime;
  index: SessionIndex;
  /** The models offered in the model picker. */
  models(): string[];
}

type TurnInput = string | ContentPart[];

export class AcpSession implements EditorSession {
  readonly id: string;
  readonly cwd: string;
  mode: ModeId;
  model: string;
  private agent: Agent;
  private readonly mcp: SessionMcp | undefined;
  private updates: TurnUpdates | undefined;
  private turn: { controller: AbortController; cancelled: boolean } | undefined;
  private readonly queued: TurnInput[] = [];
  private line: Promise<unknown> = Promise.resolve();
  private rebuildWhenIdle = false;
  private permissionCount = 0;

  constructor(
    setup: SessionSetup,
    readonly bridge: ClientBridge,
    private readonly services: SessionServices,
  ) {
    this.id = setup.id;
    this.cwd = setup.cwd;
    this.mode = setup.mode;
    this.model = setup.model;
    this.mcp = setup.mcp;
    this.agent = this.buildAgent(setup.storeId);
    this.remember();
  }

  /** The stored session the conversation continues in. */
  get storeId(): string {
    return this.agent.sessionId;
  }

  get running(): boolean {
    return this.turn !== undefined;
  }

  get currentAgent(): Agent {
    return this.agent;
  }

  modes() {
    return modeState(this.mode);
  }

  configOptions() {
    return configOptions(this.mode, this.model, this.services.models());
  }

  /** Tell the editor which slash commands this session understands. */
  announceCommands(): void {
    void this.bridge.send({ sessionUpdate: "available_commands_update", availableCommands: AVAILABLE_COMMANDS });
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const input = promptInput(blocks);
    if (typeof input === "string" && input.trimStart().startsWith("/")) {
      const reply = await runSlashCommand(this, input.trim());
      if (reply !== undefined) {
        if (typeof reply === "string") {
          await this.bridge.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } });
          return "end_turn";
        }
        return this.runTurns(reply.prompt);
      }
    }
    return this.runTurns(input);
  }

  /** Stop the running turn and drop queued prompts; a pending permission request counts as a rejection. */
  cancel(): void {
    this.queued.length = 0;
    if (!this.turn) return;
    this.turn.cancelled = true;
    this.turn.controller.abort();
    this.agent.interrupt("cancelled by the user");
  }

  steer(text: string): boolean {
    if (!this.turn) return false;
    this.agent.steer(text);
    return true;
  }

  /** Run `input` after the current turn, within the same prompt; false when nothing is running. */
  queue(input: TurnInput): boolean {
    if (!this.turn) return false;
    this.queued.push(input);
    return true;
  }

  /** Wait until no turn runs (slash commands that change the agent wait for this). */
  idle(): Promise<void> {
    return this.line.then(() => undefined);
  }

  setMode(mode: ModeId): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.reconfigure();
    void this.bridge.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  setModel(model: string): void {
    if (model === this.model) return;
    this.model = model;
    this.reconfigure();
  }

  /** Start over in a new stored session; the editor keeps the same session id. */
  reset(): void {
    this.cancel();
    this.agent = this.buildAgent(undefined);
    this.remember();
  }

  async close(): Promise<void> {
    this.cancel();
    await this.line.catch(() => undefined);
    await this.mcp?.close().catch(() => undefined);
  }

  showTerminal(terminalId: string): void {
    this.updates?.showTerminal(terminalId);
  }

  private reconfigure(): void {
    if (this.turn) {
      this.rebuildWhenIdle = true;
    } else {
      this.agent = this.buildAgent(this.storeId);
    }
    this.remember();
  }

  private toolsets(): string[] {
    if (this.mode === "plan") return [PLAN_TOOLSET];
    return [...this.services.runtime.defaultToolsets(), ...(this.mcp?.toolsets ?? [])];
  }

  private buildAgent(storeId: string | undefined): Agent {
    const runtime = this.services.runtime;
    return runtime.createAgent({
      platform: "acp",
      permissionMode: this.mode,
      toolsets: this.toolsets(),
      interactive: true,
      cwd: this.cwd,
      requestApproval: (request) => this.approve(request),
      services: { [EDITOR_SESSION_SERVICE]: this },
      onEvent: (event) => sendCompaction(this.bridge, event),
      ...(storeId ? { sessionId: storeId } : {}),
      ...(this.model !== runtime.model ? { model: { model: this.model } } : {}),
    });
  }

  /** Save where the conversation continues (after a turn, a reset, a compaction). */
  remember(): void {
    this.services.index.put(this.id, { cwd: this.cwd, mode: this.mode, model: this.model, storeId: this.storeId });
  }

  private approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.mode === "yolo") return Promise.resolve("once");
    const call = this.updates?.current();
    const toolCall = {
      toolCallId: call?.toolCallId ?? `permission-${++this.permissionCount}`,
      title: call?.title ?? request.reason,
      kind: call ? toolKind(call.name) : ("other" as const),
      status: "pending" as const,
      rawInput: { command: request.command, reason: request.reason },
    };
    return this.bridge.requestPermission(toolCall, this.turn?.controller.signal);
  }

  /** Turns run one after another: a prompt that arrives mid-turn waits for the line. */
  private async runTurns(first: TurnInput): Promise<StopReason> {
    const previous = this.line;
    let release = () => {};
    this.line = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous.catch(() => undefined);
    try {
      let input: TurnInput | undefined = first;
      let stop: StopReason = "end_turn";
      while (input !== undefined) {
        stop = await this.runOneTurn(input);
        if (stop === "cancelled") break;
        input = this.queued.shift();
      }
      return stop;
    } finally {
      release();
    }
  }

  private async runOneTurn(input: TurnInput): Promise<StopReason> {
    const updates = new TurnUpdates(this.bridge, this.cwd);
    this.updates = updates;
    const turn = { controller: new AbortController(), cancelled: false };
    this.turn = turn;
    const unsubscribe = this.agent.on(updates.handle);
    let result: RunResult;
    try {
      result = await this.agent.runConversation(input);
    } finally {
      unsubscribe();
      this.turn = undefined;
      await this.bridge.flush();
      this.afterTurn();
    }
    log("info", "acp", "turn end", { session: this.id, stop: result.stopReason, tools: result.toolCalls });
    if (turn.cancelled || result.interrupted) return "cancelled";
    if (result.stopReason === "budget") return "max_turn_requests";
    if (result.error) throw new Error(result.error);
    return "end_turn";
  }

  private afterTurn(): void {
    if (this.rebuildWhenIdle) {
      this.rebuildWhenIdle = false;
      this.agent = this.buildAgent(this.storeId);
    }
    this.remember();
  }
}
