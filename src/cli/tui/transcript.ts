/**
 * The scrolling part of the TUI: user messages, streamed replies, reasoning, tool progress
 * lines, memory notices, inline diffs, notices, and the spinner shown while the model thinks or
 * a tool runs. How each piece looks follows the `display.*` settings (see display-options.ts).
 */
import { Container, Loader, Markdown, Spacer, Text, type TUI } from "@mariozechner/pi-tui";
import { type AgentEvent, previewArgs } from "../../agent/events.js";
import type { DisplaySettings } from "../slash/context.js";
import { busyIndicator } from "./busy-indicator.js";
import type { TurnOutcome } from "./controller.js";
import {
  clockTime,
  collapseMessage,
  DEFAULT_DISPLAY_OPTIONS,
  DEFAULT_PREVIEW_LENGTH,
  type DisplayOptions,
  memoryNotice,
  reasoningText,
  shortenReasoning,
} from "./display-options.js";
import { FileMutationVerifier } from "./file-mutation-verifier.js";
import { type ToolLineInput, toolLine } from "./format.js";
import { diffOfPatchResult, formatInlineDiff, WriteSnapshots } from "./inline-diff.js";
import { stripMarkdown } from "./markdown-strip.js";
import { markdownTheme, type Style, style } from "./theme.js";
import { toolLabel } from "./tool-labels.js";
import { turnExplanation } from "./turn-explainer.js";

export type Tone = "info" | "warn" | "error" | "dim";

const TONES: Record<Tone, Style> = { info: (t) => t, warn: style.warn, error: style.error, dim: style.muted };

/** Styles do not carry across rendered lines, so each line gets its own. */
function paint(text: string, ...styles: Style[]): string {
  return text
    .split("\n")
    .map((line) => styles.reduce((acc, apply) => apply(acc), line))
    .join("\n");
}

/** What the transcript needs from outside besides the settings (replaceable in tests). */
export interface TranscriptEnv {
  /** The time shown with `display.timestamps`. */
  now?: () => Date;
  /** The directory relative file paths of write_file are resolved against. */
  cwd?: () => string;
}

export class Transcript {
  readonly container = new Container();
  /** Holds the spinner while something is in progress. */
  readonly activity = new Container();
  private assistant: Markdown | Text | undefined;
  private assistantText = "";
  private reasoning: Text | undefined;
  private reasoningText = "";
  private readonly tools = new Map<string, { line: Text; input: ToolLineInput }>();
  /** Arguments of running memory calls, for the notice when one ends. */
  private readonly memoryArgs = new Map<string, unknown>();
  private readonly snapshots: WriteSnapshots;
  private readonly verifier: FileMutationVerifier;
  private lastToolName: string | undefined;
  private textThisTurn = false;
  /** Reply text held back until the model call (or, without interim messages, the turn) ends. */
  private held = "";
  private loader: Loader | undefined;
  private readonly now: () => Date;

  constructor(
    private readonly tui: TUI,
    private readonly display: DisplaySettings,
    private readonly emojiOf: (tool: string) => string | undefined,
    env: TranscriptEnv = {},
  ) {
    this.now = env.now ?? (() => new Date());
    this.snapshots = new WriteSnapshots(env.cwd ?? (() => process.cwd()));
    this.verifier = new FileMutationVerifier(env.cwd ?? (() => process.cwd()));
  }

  private get options(): DisplayOptions {
    return this.display.options ?? DEFAULT_DISPLAY_OPTIONS;
  }

  /** A message the user sent; `pasted` when it came with a bracketed paste. */
  userMessage(text: string, pasted = false): void {
    if (!this.display.compact) this.container.addChild(new Spacer(1));
    const [first = "", ...rest] = collapseMessage(text, this.options, pasted).split("\n");
    const time = this.options.timestamps ? `  ${style.muted(clockTime(this.now()))}` : "";
    const body = [`${style.accent("›")} ${style.bold(first)}${time}`, ...rest.map((line) => `  ${style.bold(line)}`)];
    this.container.addChild(new Text(body.join("\n"), 1, 0));
    this.resetBlocks();
    this.textThisTurn = false;
    this.lastToolName = undefined;
    this.tui.requestRender();
  }

  notice(text: string, tone: Tone = "info"): void {
    this.container.addChild(new Text(paint(text, TONES[tone]), 1, 0));
    this.tui.requestRender();
  }

  /** An empty line whose text is set later (the runtime footer, once the context size is known). */
  slot(): (text: string) => void {
    const line = new Text("", 1, 0);
    this.container.addChild(line);
    return (text) => {
      line.setText(paint(text, style.muted));
      this.tui.requestRender();
    };
  }

  clear(): void {
    this.container.clear();
    this.resetBlocks();
    this.tools.clear();
    this.tui.requestRender(true);
  }

  spin(message: string): void {
    if (!this.loader) {
      const indicator = busyIndicator(this.options.indicator, style.accent);
      this.loader = new Loader(this.tui, style.accent, style.muted, message, indicator);
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
    const interim = this.options.interimMessages;
    switch (event.type) {
      case "thinking":
        if (event.state === "start") {
          // Another model call follows: what the last one wrote was not the final answer.
          if (!interim) this.held = "";
          this.spin("thinking…");
        } else {
          if (interim) this.flushHeld();
          this.stopSpinning();
        }
        break;
      case "text_delta":
        if (this.display.streaming && interim) this.appendText(event.text);
        else this.held += event.text;
        break;
      case "reasoning_delta":
        if (this.display.showReasoning) this.appendReasoning(event.text);
        break;
      case "tool_start":
        if (!interim) this.held = "";
        this.resetBlocks();
        this.toolStarted(event.callId, event.name, event.args, event.preview);
        this.spin(`running ${event.name}…`);
        break;
      case "tool_end":
        this.toolEnded(event.callId, event.name, event.durationMs, event.failed, event.result);
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
    else {
      if (result?.finalResponse && !this.textThisTurn) {
        // The provider did not stream: show the reply in one piece.
        this.appendText(result.finalResponse);
      }
      if (this.options.timestamps && this.textThisTurn) this.notice(clockTime(this.now()), "dim");
    }
    const explained = this.options.turnExplainer ? turnExplanation(outcome) : undefined;
    if (explained) this.notice(explained, "warn");
    const unchanged = this.verifier.takeWarning();
    if (unchanged && this.options.fileMutationVerifier) this.notice(unchanged, "warn");
    this.resetBlocks();
    this.tools.clear();
    this.memoryArgs.clear();
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
    const mode = this.options.finalMarkdown;
    if (!this.assistant) {
      this.assistantText = "";
      this.assistant = mode === "render" ? new Markdown("", 1, 0, markdownTheme) : new Text("", 1, 0);
      this.container.addChild(this.assistant);
    }
    this.assistantText += text;
    const body = this.assistantText.replace(/^\n+/, "");
    this.assistant.setText(mode === "strip" ? stripMarkdown(body) : body);
    this.tui.requestRender();
  }

  private appendReasoning(text: string): void {
    if (!this.reasoning) {
      this.reasoningText = "";
      this.reasoning = new Text("", 1, 0);
      this.container.addChild(this.reasoning);
    }
    this.reasoningText += text;
    const shown = shortenReasoning(this.reasoningText, this.options.reasoningFull);
    const reasoningStyle = this.options.reasoningStyle;
    const looks = reasoningStyle === "code" ? [style.italic, style.muted] : [style.muted];
    this.reasoning.setText(paint(reasoningText(shown, reasoningStyle), ...looks));
    this.tui.requestRender();
  }

  private toolStarted(callId: string, name: string, args: unknown, preview: string): void {
    const options = this.options;
    if (name === "memory") this.memoryArgs.set(callId, args);
    if (options.inlineDiffs && name === "write_file") this.snapshots.capture(callId, args);
    this.verifier.started(callId, name, args);
    const mode = this.display.toolProgress;
    if (mode === "off" || (mode === "new" && name === this.lastToolName)) return;
    this.lastToolName = name;
    const length = options.toolPreviewLength || DEFAULT_PREVIEW_LENGTH;
    const label = toolLabel(name, options.friendlyToolLabels);
    const input: ToolLineInput = {
      emoji: this.emojiOf(name),
      name,
      label: label === name ? undefined : label,
      preview: args === undefined ? preview : previewArgs(args, length),
    };
    const line = new Text(style.muted(toolLine(input)), 1, 0);
    this.tools.set(callId, { line, input });
    this.container.addChild(line);
    this.tui.requestRender();
  }

  private toolEnded(callId: string, name: string, durationMs: number, failed: boolean, result: string): void {
    const entry = this.tools.get(callId);
    if (entry) {
      entry.input.durationMs = durationMs;
      entry.input.failed = failed;
      let text = toolLine(entry.input);
      if (this.display.toolProgress === "verbose") {
        const flat = result.replace(/\s+/g, " ").trim();
        text += `\n  ${flat.length > 200 ? `${flat.slice(0, 199)}…` : flat}`;
      }
      entry.line.setText(paint(text, failed ? style.error : style.muted));
    }
    this.afterTool(callId, name, failed, result);
    this.verifier.ended(callId, name, failed, result);
    this.tui.requestRender();
  }

  /** The memory notice and the inline diff a finished call may leave. */
  private afterTool(callId: string, name: string, failed: boolean, result: string): void {
    const options = this.options;
    const args = this.memoryArgs.get(callId);
    this.memoryArgs.delete(callId);
    if (name === "memory" && !failed && options.memoryNotifications) {
      const notice = memoryNotice(args, result);
      if (notice) this.notice(notice, "dim");
    }
    if (name !== "write_file" && name !== "patch") return;
    const diff = name === "patch" ? diffOfPatchResult(result) : this.snapshots.diff(callId);
    if (failed || !diff || !options.inlineDiffs) return;
    const colours = { added: style.added, removed: style.removed, hunk: style.accent, muted: style.muted };
    this.container.addChild(new Text(formatInlineDiff(diff, colours), 3, 0));
  }

  private resetBlocks(): void {
    this.assistant = undefined;
    this.assistantText = "";
    this.reasoning = undefined;
    this.reasoningText = "";
  }
}
