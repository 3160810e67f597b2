/**
 * Questions the agent asks in the middle of a turn, shown inline above the input box: approval
 * of a dangerous command (a four-way choice) and clarify (pick a choice or type an answer); and
 * the go-ahead question before a slash command that loses work.
 * One prompt shows at a time; others wait their turn.
 */
import { type Container, type Editor, type SelectItem, SelectList, Text, type TUI } from "@mariozechner/pi-tui";
import type { ConfirmAnswer } from "../../runtime/slash-confirm.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../tools/registry.js";
import { parseClarifyAnswer } from "./format.js";
import { selectListTheme, style } from "./theme.js";

const OWN_ANSWER = "\u0000own-answer";

/**
 * Deny comes first, so Enter without a look (or a stray key) never runs the command. Each
 * choice says exactly what it allows: "always" saves this one command, never a whole kind.
 */
function approvalItems(request: ApprovalRequest): SelectItem[] {
  const shown = request.command.length > 60 ? `${request.command.slice(0, 57)}...` : request.command;
  return [
    { value: "deny", label: "Deny" },
    { value: "once", label: "Allow once" },
    { value: "session", label: `Allow ${request.reason} for the rest of this session` },
    { value: "always", label: `Always allow exactly \`${shown}\` (saved to command_allowlist)` },
  ];
}

interface Pending {
  /** Settle the prompt with its "no answer" value (deny, or an empty answer). */
  cancel(): void;
}

export class InlinePrompts {
  private chain: Promise<unknown> = Promise.resolve();
  private pending: Pending | undefined;
  private freeText: ((text: string) => void) | undefined;

  constructor(
    private readonly tui: TUI,
    private readonly area: Container,
    private readonly editor: Editor,
  ) {}

  get active(): boolean {
    return this.pending !== undefined;
  }

  /** `timeoutMs` matches the approval policy's own deadline, after which the answer no longer counts. */
  approval(request: ApprovalRequest, timeoutMs?: number): Promise<ApprovalAnswer> {
    return this.enqueue(
      () =>
        new Promise<ApprovalAnswer>((resolve) => {
          const title = [
            style.warn(`⚠ The agent wants to run a dangerous command (${request.reason}):`),
            `  ${style.bold(request.command)}`,
          ].join("\n");
          this.pick(title, approvalItems(request), (value) => resolve((value ?? "deny") as ApprovalAnswer), timeoutMs);
        }),
    );
  }

  /**
   * Go ahead / always / cancel before a command the user typed (/new, /undo, /reload-mcp). Unlike
   * the agent's approvals, going ahead comes first: the user asked for it a moment ago. Esc, or no
   * answer within `timeoutMs`, cancels.
   */
  confirm(question: string, key: string, timeoutMs?: number): Promise<ConfirmAnswer> {
    return this.enqueue(
      () =>
        new Promise<ConfirmAnswer>((resolve) => {
          const items: SelectItem[] = [
            { value: "once", label: "Yes, go ahead" },
            { value: "always", label: `Always: go ahead and stop asking (saves ${key}: false)` },
            { value: "cancel", label: "Cancel" },
          ];
          const done = (value: string | undefined) => resolve((value ?? "cancel") as ConfirmAnswer);
          this.pick(style.warn(`⚠ ${question}`), items, done, timeoutMs);
        }),
    );
  }

  clarify(question: string, choices?: string[]): Promise<string> {
    return this.enqueue(
      () =>
        new Promise<string>((resolve) => {
          const title = style.accent(`? ${question}`);
          if (!choices?.length) return this.typeAnswer(title, choices, resolve);
          const items = [
            ...choices.map((choice, i) => ({ value: choice, label: `${i + 1}. ${choice}` })),
            { value: OWN_ANSWER, label: "Type my own answer…" },
          ];
          this.pick(title, items, (value) => {
            if (value === OWN_ANSWER) this.typeAnswer(title, choices, resolve);
            else resolve(value ?? "");
          });
        }),
    );
  }

  /** Route a line typed into the editor to a waiting question; false when nothing waits for text. */
  takeTyped(text: string): boolean {
    const answer = this.freeText;
    if (!answer) return false;
    answer(text);
    return true;
  }

  /** Settle whatever is showing with its "no answer" value (used on Ctrl+C and at the end of a turn). */
  cancel(): void {
    this.pending?.cancel();
  }

  private enqueue<T>(show: () => Promise<T>): Promise<T> {
    const next = this.chain.then(show, show);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private pick(
    title: string,
    items: SelectItem[],
    done: (value: string | undefined) => void,
    timeoutMs?: number,
  ): void {
    const list = new SelectList(items, Math.min(items.length, 8), selectListTheme);
    const timer = timeoutMs ? setTimeout(() => finish(undefined), timeoutMs) : undefined;
    let settled = false;
    const finish = (value: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.close();
      done(value);
    };
    list.onSelect = (item) => finish(item.value);
    list.onCancel = () => finish(undefined);
    this.pending = { cancel: () => finish(undefined) };
    this.area.addChild(new Text(title, 1, 0));
    this.area.addChild(list);
    this.area.addChild(new Text(style.muted("↑/↓ to choose, Enter to confirm, Esc to refuse"), 1, 0));
    this.tui.setFocus(list);
    this.tui.requestRender();
  }

  private typeAnswer(title: string, choices: string[] | undefined, resolve: (answer: string) => void): void {
    this.close();
    const finish = (text: string) => {
      this.close();
      resolve(parseClarifyAnswer(text, choices));
    };
    this.freeText = finish;
    this.pending = { cancel: () => finish("") };
    this.area.addChild(new Text(title, 1, 0));
    this.area.addChild(new Text(style.muted("Type your answer and press Enter."), 1, 0));
    this.tui.setFocus(this.editor);
    this.tui.requestRender();
  }

  private close(): void {
    this.pending = undefined;
    this.freeText = undefined;
    this.area.clear();
    this.tui.setFocus(this.editor);
    this.tui.requestRender();
  }
}
