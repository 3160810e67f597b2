/**
 * Whether a shell command may run. The order of the checks is the policy:
 *
 * 1. hardline blocklist: never runs, whatever the mode (even `off`/yolo);
 * 2. `approvals.deny` globs: refused without asking, even in yolo;
 * 3. commands the dangerous-pattern detector does not flag run, unless an outside scanner
 *    (`scanCommand`: tirith, see tirith.ts) flags them; a scanner never clears what our rules flag;
 * 4. mode `off` (or yolo) runs everything else, as does a call the session's permission mode or a
 *    `permissions.allow` rule already allowed (`ctx.preapproved`);
 * 5. the permanent `command_allowlist` and this session's approvals run;
 * 6. nobody to ask (cron, the API server unless a run says someone answers, subagents, `interactive: false`): `cron_mode` /
 *    `unattended_mode` decide, deny by default;
 * 7. mode `smart` asks the LLM judge when one is wired in, else behaves like `manual`;
 * 8. mode `manual` asks the user through `ctx.requestApproval`, denying on timeout.
 */
import type { ApprovalAnswer, ToolContext } from "../registry.js";
import { detectDangerousCommand, detectHardlineCommand } from "./dangerous.js";
import { globToRegExp, matchDenyRule } from "./deny-rules.js";

export type ApprovalMode = "manual" | "smart" | "off";
export type UnattendedAction = "deny" | "approve";
export type SmartVerdict = "approve" | "deny" | "escalate";

export interface SmartJudgeRequest {
  command: string;
  description: string;
  key: string | null;
}

/** An auxiliary-model risk check for `smart` mode. Errors count as "escalate". */
export type SmartJudge = (request: SmartJudgeRequest, signal: AbortSignal) => Promise<SmartVerdict>;

/** Why a command needs a yes; `key` names its kind for session approvals and `command_allowlist`. */
export type ApprovalTarget = { key: string; description: string };
/** A second opinion on a command our rules let through: a reason to ask, or null for none. */
export type CommandScanner = (command: string, ctx: ToolContext) => Promise<ApprovalTarget | null>;

export interface ApprovalPolicyOptions {
  /** `approvals.mode`; default "manual". */
  mode?: ApprovalMode;
  /** `approvals.timeout`: seconds to wait for an answer before denying; default 60. */
  timeoutSeconds?: number;
  /** `approvals.deny`: globs refused without asking. */
  deny?: string[];
  /** `approvals.cron_mode`: what cron jobs do with a dangerous command; default "deny". */
  cronMode?: UnattendedAction;
  /** `approvals.unattended_mode`: the same for other contexts with nobody to ask; default "deny". */
  unattendedMode?: UnattendedAction;
  /** `command_allowlist`: pattern keys (or command globs) approved for good. */
  commandAllowlist?: string[];
  /** Skip prompts for dangerous commands (`--yolo`). `HERMES_YOLO_MODE=1` does the same. */
  yolo?: boolean;
  /** Saves the exact command (`cmd:...`) answered with "always" (the caller writes it to `command_allowlist`). */
  persistAllowlist?: (pattern: string) => void | Promise<void>;
  smartJudge?: SmartJudge;
  scanCommand?: CommandScanner;
}

export type AllowedVia = "safe" | "yolo" | "permission" | "allowlist" | "session" | "user" | "smart" | "unattended";
export type DeniedBy = "hardline" | "deny_rule" | "user" | "timeout" | "unattended" | "smart" | "interrupted";

export type CommandVerdict =
  | { allowed: true; via: AllowedVia; key?: string | null; answer?: ApprovalAnswer }
  | { allowed: false; by: DeniedBy; message: string; key?: string | null };

const UNATTENDED_PLATFORMS = new Set(["cron", "webhook"]);
/** Unattended unless the surface says a person answers (the API server's Runs API does). */
const ATTENDED_ONLY_WHEN_SAID = new Set(["api_server"]);
const DEFAULT_TIMEOUT_SECONDS = 60;

export function yoloFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes|on)$/i.test(env.HERMES_YOLO_MODE ?? "");
}

export class ApprovalPolicy {
  mode: ApprovalMode;
  yolo: boolean;
  smartJudge: SmartJudge | undefined;
  scanCommand: CommandScanner | undefined;
  private readonly timeoutMs: number;
  private readonly denyRules: string[];
  private readonly cronMode: UnattendedAction;
  private readonly unattendedMode: UnattendedAction;
  private readonly allowlist: Set<string>;
  private readonly sessionApprovals = new Map<string, Set<string>>();
  private readonly persistAllowlist: ((pattern: string) => void | Promise<void>) | undefined;

  constructor(options: ApprovalPolicyOptions = {}) {
    this.mode = options.mode ?? "manual";
    this.yolo = options.yolo ?? false;
    this.smartJudge = options.smartJudge;
    this.scanCommand = options.scanCommand;
    this.timeoutMs = (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    this.denyRules = [...(options.deny ?? [])];
    this.cronMode = options.cronMode ?? "deny";
    this.unattendedMode = options.unattendedMode ?? "deny";
    this.allowlist = new Set(options.commandAllowlist ?? []);
    this.persistAllowlist = options.persistAllowlist;
  }

  /** Patterns approved for good (the in-memory view of `command_allowlist`). */
  allowlisted(): string[] {
    return [...this.allowlist];
  }

  /** Forget "session" answers of one session (or of all sessions). */
  clearSession(sessionId?: string): void {
    if (sessionId === undefined) this.sessionApprovals.clear();
    else this.sessionApprovals.delete(sessionId);
  }

  async check(command: string, ctx: ToolContext): Promise<CommandVerdict> {
    const hardline = detectHardlineCommand(command);
    if (hardline.blocked) {
      return {
        allowed: false,
        by: "hardline",
        message: `BLOCKED: ${hardline.description ?? "catastrophic command"}. This command is on the hardline blocklist and never runs, whatever the approval settings. Do not retry or rephrase it; choose another approach or ask the user to run it outside the agent.`,
      };
    }
    const rule = matchDenyRule(command, this.denyRules);
    if (rule !== null) {
      return {
        allowed: false,
        by: "deny_rule",
        message: `BLOCKED: the command matches the user's deny rule "${rule}" (approvals.deny). Do not retry or rephrase it; choose another approach.`,
      };
    }
    const danger = detectDangerousCommand(command);
    const ownKey = danger.key ?? danger.description ?? "dangerous";
    const own = danger.dangerous ? { key: ownKey, description: danger.description ?? ownKey } : undefined;
    const target = this.pendingTarget(command, own, await this.scan(command, ctx), ctx);
    if (!target) return { allowed: true, via: "safe" };
    const { key, description } = target;
    const settled = this.settledWithoutAsking(
      command,
      { key, description },
      ctx,
      (what, where) =>
        `Command refused: ${what}. Nobody is available to approve dangerous commands in this context (${where}). Find a safer way to do this, or leave it for the user.`,
    );
    if (settled) return settled;

    if (this.mode === "smart" && this.smartJudge) {
      const verdict = await this.askJudge({ command, description, key }, ctx.signal);
      if (verdict === "approve") return { allowed: true, via: "smart", key };
      if (verdict === "deny") {
        return {
          allowed: false,
          by: "smart",
          key,
          message: `Command refused by the automatic risk check: ${description}. Choose a safer approach.`,
        };
      }
    }
    // `smart` without an auxiliary model (or a judge that escalates) falls through to a prompt.
    return this.askUser(command, description, key, ctx);
  }

  /** The scanner's reason to ask, skipped where nothing is asked (approvals off, yolo, a permission rule). */
  private async scan(command: string, ctx: ToolContext): Promise<ApprovalTarget | undefined> {
    if (!this.scanCommand || this.mode === "off" || this.yolo || yoloFromEnv() || ctx.preapproved) return undefined;
    return (await this.scanCommand(command, ctx)) ?? undefined;
  }

  /** A command both our rules and the scanner flag needs a yes covering each: one is not the other. */
  private pendingTarget(
    command: string,
    own: ApprovalTarget | undefined,
    scanned: ApprovalTarget | undefined,
    ctx: ToolContext,
  ): ApprovalTarget | undefined {
    if (!own || !scanned) return own ?? scanned;
    if (this.approvedBefore(own.key, command, ctx)) return scanned;
    if (this.approvedBefore(scanned.key, command, ctx)) return own;
    return { key: `${own.key} + ${scanned.key}`, description: `${own.description}; ${scanned.description}` };
  }

  private approvedBefore(key: string, command: string, ctx: ToolContext): boolean {
    return this.isAllowlisted(key, command) || this.sessionApprovals.get(sessionKey(ctx))?.has(key) === true;
  }

  /**
   * A file tool's write to a place where files run later (autostart, systemd units, git
   * hooks): allowed under yolo, refused where nobody can answer, asked about otherwise.
   */
  checkFileWrite(
    path: string,
    target: { key: string; description: string },
    ctx: ToolContext,
  ): Promise<CommandVerdict> {
    return this.checkAction(`write ${path}`, { ...target, description: `${target.description} (${path})` }, ctx);
  }

  /**
   * Something other than a shell command that needs a person's yes (a file write where files
   * run later, a script that runs programs or deletes files): the same rules as commands.
   */
  async checkAction(
    subject: string,
    target: { key: string; description: string },
    ctx: ToolContext,
  ): Promise<CommandVerdict> {
    const settled = this.settledWithoutAsking(
      subject,
      target,
      ctx,
      (what, where) => `Refused: ${what}. Nobody is available to approve it here (${where}); leave it for the user.`,
    );
    if (settled) return settled;
    // "always" cannot name one exact action the way it names a command: it holds for the session.
    return this.askUser(subject, target.description, target.key, ctx, { rememberExact: false });
  }

  /**
   * The answer when nobody needs asking: yolo or approvals off, an allowlist entry, this
   * session's approval, or an unattended context (approve or deny by its setting).
   */
  private settledWithoutAsking(
    subject: string,
    { key, description }: { key: string; description: string },
    ctx: ToolContext,
    refusal: (what: string, where: string) => string,
  ): CommandVerdict | undefined {
    if (this.mode === "off" || this.yolo || yoloFromEnv()) return { allowed: true, via: "yolo", key };
    if (ctx.preapproved) return { allowed: true, via: "permission", key };
    if (this.isAllowlisted(key, subject)) return { allowed: true, via: "allowlist", key };
    if (this.sessionApprovals.get(sessionKey(ctx))?.has(key)) return { allowed: true, via: "session", key };
    const unattended = unattendedAction(ctx, this.cronMode, this.unattendedMode);
    if (unattended === "approve") return { allowed: true, via: "unattended", key };
    if (unattended === "deny") {
      return { allowed: false, by: "unattended", key, message: refusal(description, contextName(ctx)) };
    }
    return undefined;
  }

  private isAllowlisted(key: string, command: string): boolean {
    if (this.allowlist.has(key)) return true;
    const exact = exactCommandEntry(command);
    for (const pattern of this.allowlist) {
      if (pattern.startsWith(EXACT_PREFIX)) {
        if (pattern === exact) return true;
        continue;
      }
      if (pattern.toLowerCase() === key.toLowerCase()) return true;
      if (/[*?[]/.test(pattern) && globToRegExp(pattern).test(command.trim())) return true;
    }
    return false;
  }

  private async askJudge(request: SmartJudgeRequest, signal: AbortSignal): Promise<SmartVerdict> {
    try {
      return (await this.smartJudge?.(request, signal)) ?? "escalate";
    } catch {
      return "escalate";
    }
  }

  private async askUser(
    command: string,
    description: string,
    key: string,
    ctx: ToolContext,
    options: { rememberExact: boolean } = { rememberExact: true },
  ): Promise<CommandVerdict> {
    const ask = ctx.requestApproval;
    if (!ask) {
      return { allowed: false, by: "unattended", key, message: `Command refused: ${description}. No approver.` };
    }
    const answer = await withTimeout(ask({ command, reason: description, key }), this.timeoutMs, ctx.signal);
    if (answer === "timeout") {
      return {
        allowed: false,
        by: "timeout",
        key,
        message: `Command refused: no answer to the approval request within ${this.timeoutMs / 1000}s (${description}).`,
      };
    }
    if (answer === "aborted") {
      return { allowed: false, by: "interrupted", key, message: "Command cancelled: the turn was interrupted." };
    }
    if (answer === "deny") {
      return {
        allowed: false,
        by: "user",
        key,
        message: `The user denied this command (${description}). Do not retry it; ask the user how to proceed or take another approach.`,
      };
    }
    if (answer === "session" || (answer === "always" && !options.rememberExact)) this.approveForSession(ctx, key);
    // "always" allows this exact command from now on, never the whole kind of command.
    if (answer === "always" && options.rememberExact) await this.approveForever(exactCommandEntry(command));
    return { allowed: true, via: "user", key, answer };
  }

  private approveForSession(ctx: ToolContext, key: string): void {
    const id = sessionKey(ctx);
    let set = this.sessionApprovals.get(id);
    if (!set) {
      set = new Set();
      this.sessionApprovals.set(id, set);
    }
    set.add(key);
  }

  private async approveForever(entry: string): Promise<void> {
    if (this.allowlist.has(entry)) return;
    this.allowlist.add(entry);
    try {
      await this.persistAllowlist?.(entry);
    } catch {
      // The approval still holds for this process; saving is best effort.
    }
  }
}

/** How an "always" answer is stored in `command_allowlist`: one exact command, whitespace-normalised. */
export const EXACT_PREFIX = "cmd:";

export function exactCommandEntry(command: string): string {
  return `${EXACT_PREFIX}${command.trim().replace(/\s+/g, " ")}`;
}

function sessionKey(ctx: ToolContext): string {
  return ctx.sessionId ?? ctx.taskId ?? "default";
}

function contextName(ctx: ToolContext): string {
  return ctx.platform ?? (ctx.interactive === false ? "non-interactive run" : "no approval channel");
}

/** "approve"/"deny" when nobody can answer a prompt here; null when a person can be asked. */
function unattendedAction(
  ctx: ToolContext,
  cronMode: UnattendedAction,
  unattendedMode: UnattendedAction,
): UnattendedAction | null {
  if (ctx.platform === "cron") return cronMode;
  if (ATTENDED_ONLY_WHEN_SAID.has(ctx.platform ?? "") && ctx.interactive !== true) return unattendedMode;
  if (ctx.interactive === false || UNATTENDED_PLATFORMS.has(ctx.platform ?? "") || !ctx.requestApproval) {
    return unattendedMode;
  }
  return null;
}

async function withTimeout(
  answer: Promise<ApprovalAnswer>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ApprovalAnswer | "timeout" | "aborted"> {
  if (signal.aborted) return "aborted";
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<"timeout" | "aborted">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([answer.catch((): ApprovalAnswer => "deny"), stop]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Build a policy from config: the `approvals` section and `command_allowlist` (read both at the
 * top level, where the original keeps it, and inside `approvals`).
 * Unknown or malformed values fall back to the defaults (the config loader reports them).
 */
export function approvalPolicyFromConfig(
  config: { approvals?: unknown; command_allowlist?: unknown } | undefined,
  extra: Pick<ApprovalPolicyOptions, "persistAllowlist" | "smartJudge" | "yolo" | "scanCommand"> = {},
): ApprovalPolicy {
  const section = isRecord(config?.approvals) ? config.approvals : {};
  // YAML 1.1 readers turn a bare `off` into false; accept that spelling too.
  const rawMode = section.mode === false ? "off" : section.mode;
  const mode = rawMode === "manual" || rawMode === "smart" || rawMode === "off" ? rawMode : undefined;
  const action = (value: unknown): UnattendedAction | undefined =>
    value === "deny" || value === "approve" ? value : undefined;
  return new ApprovalPolicy({
    mode,
    timeoutSeconds: typeof section.timeout === "number" && section.timeout > 0 ? section.timeout : undefined,
    deny: stringList(section.deny),
    cronMode: action(section.cron_mode),
    unattendedMode: action(section.unattended_mode),
    commandAllowlist: [...stringList(config?.command_allowlist), ...stringList(section.command_allowlist)],
    ...extra,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
