/**
 * What one session may ask of the editor: send `session/update`s in order, ask for
 * permission, and (when the client offers them) read and write files and run terminals.
 */
import type {
  AgentContext,
  ClientCapabilities,
  RequestPermissionRequest,
  SessionUpdate,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { ApprovalAnswer } from "../tools/registry.js";
import { log } from "../util/log.js";

const PERMISSION_OPTIONS = [
  { optionId: "once", name: "Allow once", kind: "allow_once" },
  { optionId: "session", name: "Allow for this session", kind: "allow_always" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "deny", name: "Reject", kind: "reject_once" },
] as const;

const ANSWERS = new Set<string>(["once", "session", "always", "deny"]);

export interface CommandOutcome {
  output: string;
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
}

export class ClientBridge {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: AgentContext,
    private readonly capabilities: ClientCapabilities,
    readonly sessionId: string,
  ) {}

  get canReadFiles(): boolean {
    return this.capabilities.fs?.readTextFile === true;
  }

  get canWriteFiles(): boolean {
    return this.capabilities.fs?.writeTextFile === true;
  }

  get canRunTerminals(): boolean {
    return this.capabilities.terminal === true;
  }

  /** The client takes `compaction_update`s (`session.compaction` advertised). */
  get canShowCompactions(): boolean {
    const compaction = this.capabilities.session?.compaction;
    return compaction !== undefined && compaction !== null;
  }

  /** Queue an update after every update queued before it; a failed send is logged, never thrown. */
  send(update: SessionUpdate | (() => Promise<SessionUpdate | undefined>)): Promise<void> {
    const next = this.chain.then(async () => {
      const resolved = typeof update === "function" ? await update() : update;
      if (!resolved) return;
      await this.client.notify("session/update", { sessionId: this.sessionId, update: resolved });
    });
    this.chain = next.catch((error: Error) => log("warn", "acp", "update not sent", { error: error.message }));
    return this.chain as Promise<void>;
  }

  /** Resolves once every queued update is written. */
  flush(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  /**
   * Ask the user about `toolCall`. A cancelled prompt, an unknown option or a closed
   * connection all count as a rejection.
   */
  async requestPermission(toolCall: ToolCallUpdate, signal?: AbortSignal): Promise<ApprovalAnswer> {
    await this.flush();
    try {
      const request: RequestPermissionRequest = {
        sessionId: this.sessionId,
        toolCall,
        options: PERMISSION_OPTIONS.map((option) => ({ ...option })),
      };
      const response = await this.client.request(
        "session/request_permission",
        request,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      );
      const outcome = response.outcome;
      if (outcome.outcome !== "selected" || !ANSWERS.has(outcome.optionId)) return "deny";
      return outcome.optionId as ApprovalAnswer;
    } catch (error) {
      log("info", "acp", "permission request failed", { error: (error as Error).message });
      return "deny";
    }
  }

  async readTextFile(path: string, line?: number, limit?: number): Promise<string> {
    const response = await this.client.request("fs/read_text_file", {
      sessionId: this.sessionId,
      path,
      ...(line !== undefined ? { line } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    return response.content;
  }

  async writeTextFile(path: string, content: string): Promise<void> {
    await this.client.request("fs/write_text_file", { sessionId: this.sessionId, path, content });
  }

  /**
   * Run a shell command in an editor terminal; `onTerminal` hears its id at once so the
   * tool call can show it while it runs. Killed on timeout or when `signal` aborts.
   */
  async runCommand(
    command: string,
    options: { cwd: string; timeoutMs: number; outputLimit: number; signal: AbortSignal },
    onTerminal: (terminalId: string) => void,
  ): Promise<CommandOutcome & { stopped?: "timeout" | "interrupted" }> {
    const terminal = await this.client.createTerminal({
      sessionId: this.sessionId,
      command: "bash",
      args: ["-c", command],
      cwd: options.cwd,
      outputByteLimit: options.outputLimit,
    });
    onTerminal(terminal.id);
    let stopped: "timeout" | "interrupted" | undefined;
    const stop = (why: "timeout" | "interrupted") => {
      stopped ??= why;
      terminal.kill().catch(() => undefined);
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("interrupted");
    options.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const exit = await terminal.waitForExit();
      const output = await terminal.currentOutput();
      return {
        output: output.output,
        truncated: output.truncated,
        exitCode: exit.exitCode ?? null,
        signal: exit.signal ?? null,
        ...(stopped ? { stopped } : {}),
      };
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      await terminal.release().catch(() => undefined);
    }
  }
}
