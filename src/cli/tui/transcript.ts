/**
 * The scrolling part of the TUI: user messages, streamed markdown replies, reasoning, tool
 * progress lines, notices, and the spinner shown while the model thinks or a tool runs.
 */
import { Container, Loader, Markdown, Spacer, Text, type TUI } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../../agent/events.js";
import type { DisplaySettings } from "../slash/context.js";
import type { TurnOutcome } from "./controller.js";
import { type ToolLineInput, toolLine } from "./format.js";
import { markdownTheme, type Style, style } from "./theme.js";

export type Tone = "info" | "warn" | "error" | "dim";

const TONES: Record<Tone, Style> = { info: (t) => t, warn: style.yellow, error: style.red, dim: style.gray };

/** Styles do not carry across rendered lines, so each line gets its own. */
function paint(text: string, ...styles: Style[]): string {
  return text
    .split("\n")
    .map((line) => styles.reduce((acc, apply) => apply(acc), line))
    .join("\n");
}

export class Transcript {
  readonly container = new Container();
  /** Holds the spinner while something is in progress. */
  readonly activity = new Container();
  private assistant: Markdown | undefined;
  private assistantText = "";
  private reasoning: Text | undefined;
  private reasoningText = "";
  private readonly tools = new Map<string, { line: Text; input: ToolLineInput }>();
  private lastToolName: string | undefined;
  private textThisTurn = false;
  /** Reply text held back until the model call ends (`display.streaming: false`). */
  private held = "";
  private loader: Loader | undefined;

  constructor(
    private readonly tui: TUI,
    private readonly display: DisplaySettings,
    private readonly emojiOf: (tool: string) => string | undefined,
  ) {}

  userMessage(text: string): void {
    if (!this.display.compact) this.container.addChild(new Spacer(1));
    this.container.addChild(new Text(`${style.cyan("›")} ${style.bold(text)}`, 1, 0));
    this.resetBlocks();
    this.textThisTurn = false;
    this.lastToolName = undefined;
    this.tui.requestRender();
  }

  notice(text: string, tone: Tone = "info"): void {
    this.container.addChild(new Text(paint(text, TONES[tone]), 1, 0));
    this.tui.requestRender();
  }

  clear(): void {
    this.container.clear();
    this.resetBlocks();
    this.tools.clear();
    this.tui.requestRender(true);
  }

  spin(message: string): void {
    if (!this.loader) {
      this.loader = new Loader(this.tui, style.cyan, style.gray, message);
      this.activity.addChild(this.loader);
      this.loader.start();
    } else {
      this.loader.setMessage(message);
    }
    this.tui.requestRender();
  }

  stopSpinning(): void {
    if (!this.loader) return;
    this.loader.stop();
    this.activity.clear();
    this.loader = undefined;
    this.tui.requestRender();
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "thinking":
        if (event.state === "start") this.spin("thinking…");
        else {
          this.flushHeld();
          this.stopSpinning();
        }
        break;
      case "text_delta":
        if (this.display.streaming) this.appendText(event.text);
        else this.held += event.text;
        break;
      case "reasoning_delta":
        if (this.display.showReasoning) this.appendReasoning(event.text);
        break;
      case "tool_start":
        this.resetBlocks();
        this.toolStarted(event.callId, event.name, event.preview);
        this.spin(`running ${event.name}…`);
        break;
      case "tool_end":
        this.toolEnded(event.callId, event.durationMs, event.failed, event.result);
        if ([...this.tools.values()].every((t) => t.input.durationMs !== undefined)) this.stopSpinning();
        break;
      case "status":
        this.notice(`… ${event.message}`, event.kind === "warning" ? "warn" : "dim");
        break;
      default:
        break;
    }
  }

  endTurn(outcome: TurnOutcome): void {
    this.flushHeld();
    this.stopSpinning();
    const result = outcome.result;
    if (result?.interrupted) this.notice("[interrupted]", "warn");
    else if (outcome.error) this.notice(`✗ ${outcome.error}`, "error");
    else if (result?.finalResponse && !this.textThisTurn) {
      // The provider did not stream: show the reply in one piece.
      this.appendText(result.finalResponse);
    }
    this.resetBlocks();
    this.tools.clear();
    this.tui.requestRender();
  }

  private flushHeld(): void {
    const text = this.held;
    this.held = "";
    this.appendText(text);
  }

  private appendText(text: string): void {
    if (!text) return;
    this.stopSpinning();
    this.textThisTurn = true;
    if (!this.assistant) {
      this.assistantText = "";
      this.assistant = new Markdown("", 1, 0, markdownTheme);
      this.container.addChild(this.assistant);
    }
    this.assistantText += text;
    this.assistant.setText(this.assistantText.replace(/^\n+/, ""));
    this.tui.requestRender();
  }

  private appendReasoning(text: string): void {
    if (!this.reasoning) {
      this.reasoningText = "";
      this.reasoning = new Text("", 1, 0);
      this.container.addChild(this.reasoning);
    }
    this.reasoningText += text;
    this.reasoning.setText(paint(`💭 ${this.reasoningText.trim()}`, style.italic, style.gray));
    this.tui.requestRender();
  }

  private toolStarted(callId: string, name: string, preview: string): void {
    const mode = this.display.toolProgress;
    if (mode === "off" || (mode === "new" && name === this.lastToolName)) return;
    this.lastToolName = name;
    const input: ToolLineInput = { emoji: this.emojiOf(name), name, preview };
    const line = new Text(style.gray(toolLine(input)), 1, 0);
    this.tools.set(callId, { line, input });
    this.container.addChild(line);
    this.tui.requestRender();
  }

  private toolEnded(callId: string, durationMs: number, failed: boolean, result: string): void {
    const entry = this.tools.get(callId);
    if (!entry) return;
    entry.input.durationMs = durationMs;
    entry.input.failed = failed;
    let text = toolLine(entry.input);
    if (this.display.toolProgress === "verbose") {
      const flat = result.replace(/\s+/g, " ").trim();
      text += `\n  ${flat.length > 200 ? `${flat.slice(0, 199)}…` : flat}`;
    }
    entry.line.setText(paint(text, failed ? style.red : style.gray));
    this.tui.requestRender();
  }

  private resetBlocks(): void {
    this.assistant = undefined;
    this.assistantText = "";
    this.reasoning = undefined;
    this.reasoningText = "";
  }
}
