/**
 * The interactive terminal UI: a transcript with streamed markdown and tool progress, inline
 * prompts, a multi-line input with history and slash-command completion, and a status bar.
 * Ctrl+C stops the running turn; a second Ctrl+C within two seconds (or Ctrl+D on an empty
 * input) leaves.
 */

import {
  CombinedAutocompleteProvider,
  type Component,
  Container,
  Editor,
  matchesKey,
  ProcessTerminal,
  Text,
  TUI,
  truncateToWidth,
  visibleWidth,
} from "@mariozechner/pi-tui";
import type { AgentEvent } from "../../agent/events.js";
import { type ConfirmAnswer, type ConfirmKind, confirmKey } from "../../runtime/slash-confirm.js";
import { nextMode } from "../../tools/permissions/gate.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../tools/registry.js";
import type { ChatFlags } from "../program.js";
import { resumeRecap } from "../resume-recap.js";
import type { ContextStatus } from "../slash/context.js";
import { describeMode } from "../slash/control-commands.js";
import { ChatController, type ChatView, type TurnOutcome } from "./controller.js";
import { footerLine } from "./display-options.js";
import { statusText } from "./format.js";
import { approvalSummary, clarifySummary } from "./prompt-summary.js";
import { InlinePrompts } from "./prompts.js";
import { StatusRefresh } from "./status-refresh.js";
import { applySkin, editorTheme, style } from "./theme.js";
import { Transcript } from "./transcript.js";

const DOUBLE_PRESS_MS = 2000;
/** How a terminal marks the start of pasted text (bracketed paste). */
const PASTE_START = "\x1b[200~";

class StatusBar implements Component {
  text = "";

  render(width: number): string[] {
    const line = truncateToWidth(` ${this.text}`, width);
    return [style.inverse(line + " ".repeat(Math.max(0, width - visibleWidth(line))))];
  }

  invalidate(): void {}
}

class TuiView implements ChatView {
  readonly tui = new TUI(new ProcessTerminal());
  readonly editor = new Editor(this.tui, editorTheme);
  readonly statusBar = new StatusBar();
  readonly promptArea = new Container();
  readonly prompts = new InlinePrompts(this.tui, this.promptArea, this.editor);
  transcript: Transcript | undefined;
  controller: ChatController | undefined;
  private context: ContextStatus | undefined;
  private lastCtrlC = 0;
  /** A bracketed paste reached the editor since the last message was sent. */
  private pasteSeen = false;
  /** Messages sent with a paste in them, until their turn starts (`paste_collapse_threshold`). */
  private readonly pastedMessages = new Set<string>();
  private turnStartedAt = 0;
  private refresh: StatusRefresh | undefined;
  private resolveClosed: () => void = () => {};
  readonly closed = new Promise<void>((resolve) => {
    this.resolveClosed = resolve;
  });

  attach(controller: ChatController): void {
    this.controller = controller;
    const { runtime } = controller;
    const skinNotice = applySkin(controller.display.options?.skin ?? "default");
    const transcript = new Transcript(
      this.tui,
      controller.display,
      (tool) => controller.runtime.agent.options.registry?.get(tool)?.emoji,
      { cwd: () => controller.runtime.agent.options.cwd ?? process.cwd() },
    );
    this.transcript = transcript;
    const refreshSeconds = controller.display.options?.refreshSeconds ?? 0;
    this.refresh = new StatusRefresh(refreshSeconds, () => this.statusChanged());
    const header = [
      style.bold("Hermes Agent"),
      style.muted(` · ${runtime.provider}/${runtime.model} · session ${runtime.agent.sessionId}`),
      ...(controller.display.compact
        ? []
        : [
            "\n",
            style.muted("Enter sends · Alt+Enter new line · /help for commands · Ctrl+C stops a turn, twice exits"),
          ]),
    ].join("");
    this.tui.addChild(new Text(header, 1, 0));
    this.tui.addChild(transcript.container);
    this.tui.addChild(transcript.activity);
    this.tui.addChild(this.promptArea);
    this.tui.addChild(this.editor);
    this.tui.addChild(this.statusBar);
    if (skinNotice) transcript.notice(skinNotice, "warn");
    this.editor.setAutocompleteProvider(
      new CombinedAutocompleteProvider(
        controller.commands.list().map((c) => ({ name: c.name, description: c.description })),
        process.cwd(),
      ),
    );
    this.editor.onSubmit = (text) => this.onSubmit(text);
    this.tui.addInputListener((data) => this.onKey(data));
    this.tui.setFocus(this.editor);
    this.statusChanged();
    void controller.messages().then((messages) => {
      if (messages.length === 0) return;
      const settings = controller.display.resume;
      const lines = settings
        ? resumeRecap(messages, settings)
        : [`Resumed a session with ${messages.length} messages; /history shows them.`];
      transcript.notice(lines.join("\n"), "dim");
      this.refreshContext();
    });
  }

  private refreshContext(): void {
    void this.controller
      ?.contextStatus()
      .then((status) => {
        this.context = status;
        this.statusChanged();
      })
      .catch(() => undefined);
  }

  private onSubmit(text: string): void {
    const trimmed = text.trim();
    if (this.prompts.takeTyped(text)) return;
    if (!trimmed) return;
    if (this.pasteSeen) this.pastedMessages.add(trimmed);
    this.pasteSeen = false;
    this.editor.addToHistory(trimmed);
    const controller = this.controller;
    if (!controller) return;
    if (trimmed.startsWith("/") && controller.commands.resolve(trimmed)) this.transcript?.notice(trimmed, "dim");
    void controller.submit(trimmed).catch((error: unknown) => this.print(`✗ ${(error as Error).message}`));
  }

  private onKey(data: string): { consume: boolean } | undefined {
    const controller = this.controller;
    if (!controller) return undefined;
    if (data.startsWith(PASTE_START)) this.pasteSeen = true;
    if (matchesKey(data, "ctrl+c")) {
      const now = Date.now();
      const again = now - this.lastCtrlC < DOUBLE_PRESS_MS;
      this.lastCtrlC = now;
      if (again) {
        controller.exit();
      } else if (controller.busy) {
        this.prompts.cancel();
        controller.stop();
      } else if (this.editor.getText()) {
        this.editor.setText("");
        this.pasteSeen = false;
        this.lastCtrlC = 0;
      } else {
        this.transcript?.notice("Press Ctrl+C again to exit.", "dim");
      }
      return { consume: true };
    }
    if (matchesKey(data, "shift+tab") && !this.prompts.active) {
      const mode = nextMode(controller.permissionMode);
      controller.setMode(mode);
      this.transcript?.notice(describeMode(mode), "dim");
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && !this.editor.getText() && !this.prompts.active) {
      controller.exit();
      return { consume: true };
    }
    return undefined;
  }

  print(text: string): void {
    this.transcript?.notice(text);
  }

  clearScreen(): void {
    this.transcript?.clear();
  }

  agentEvent(event: AgentEvent): void {
    this.transcript?.event(event);
  }

  turnStarted(text: string): void {
    this.turnStartedAt = Date.now();
    this.transcript?.userMessage(text, this.pastedMessages.delete(text));
    this.statusChanged();
  }

  bell(): void {
    process.stdout.write("\x07");
  }

  turnEnded(outcome: TurnOutcome): void {
    this.prompts.cancel();
    this.transcript?.endTurn(outcome);
    this.showFooter(outcome);
    this.refreshContext();
  }

  /** `display.runtime_footer`: a line of facts under a finished answer. */
  private showFooter(outcome: TurnOutcome): void {
    const controller = this.controller;
    const footer = controller?.display.options?.footer;
    if (
      !controller ||
      !this.transcript ||
      !footer?.enabled ||
      !outcome.result ||
      outcome.result.interrupted ||
      outcome.error
    ) {
      return;
    }
    const fill = this.transcript.slot();
    const facts = {
      model: controller.runtime.model,
      cwd: controller.runtime.agent.options.cwd ?? process.cwd(),
      durationMs: Date.now() - this.turnStartedAt,
      tokensIn: outcome.result.usage.inputTokens,
      tokensOut: outcome.result.usage.outputTokens,
    };
    void controller
      .contextStatus()
      .then((status) => status.percent)
      .catch(() => undefined)
      .then((contextPercent) => fill(footerLine(footer.fields, { ...facts, contextPercent })));
  }

  statusChanged(): void {
    const controller = this.controller;
    if (!controller) return;
    this.refresh?.update(controller.busy);
    this.statusBar.text = statusText({
      model: controller.runtime.model,
      usage: controller.usage(),
      context: this.context,
      busy: controller.busy,
      queued: controller.queued,
      yolo: controller.runtime.approvals.yolo,
      mode: controller.permissionMode,
      showCost: controller.display.showCost,
      busyForMs: this.refresh?.busyFor(),
    });
    this.tui.requestRender();
  }

  async askClarify(question: string, choices?: string[]): Promise<string> {
    const answer = await this.prompts.clarify(question, choices);
    this.persistPrompt(clarifySummary(question, answer));
    return answer;
  }

  async askApproval(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const seconds = this.controller?.runtime.config.approvals.timeout;
    const answer = await this.prompts.approval(request, seconds ? seconds * 1000 : undefined);
    this.persistPrompt(approvalSummary(request, answer));
    return answer;
  }

  /** `display.persist_prompts`: the answered question stays in the transcript as one line. */
  private persistPrompt(line: string): void {
    if (this.controller?.display.options?.persistPrompts) this.transcript?.notice(line, "dim");
  }

  askConfirm(question: string, kind: ConfirmKind): Promise<ConfirmAnswer> {
    const seconds = this.controller?.runtime.config.approvals.timeout;
    return this.prompts.confirm(question, confirmKey(kind), seconds ? seconds * 1000 : undefined);
  }

  exit(): void {
    this.prompts.cancel();
    this.refresh?.stop();
    this.resolveClosed();
  }
}

export async function runTui(flags: ChatFlags): Promise<void> {
  const view = new TuiView();
  // Built before the screen starts, so a configuration error prints as plain text.
  const controller = await ChatController.create(flags, view, { autoResumeRecent: true });
  view.attach(controller);
  view.tui.start();
  await view.closed;
  await controller.close();
  view.tui.stop();
  const note = controller.exitNote();
  if (note) process.stdout.write(`${note}\n`);
}
