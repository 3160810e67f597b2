/** A chat view that records what the controller shows and answers prompts as told. */
import type { AgentEvent } from "../../src/agent/events.js";
import type { ChatView, TurnOutcome } from "../../src/cli/tui/controller.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/tools/registry.js";

export class RecordingView implements ChatView {
  printed: string[] = [];
  events: AgentEvent[] = [];
  outcomes: TurnOutcome[] = [];
  approvals: ApprovalRequest[] = [];
  approvalAnswer: ApprovalAnswer = "deny";
  clarifyAnswer = "";
  cleared = 0;
  exited = false;
  onEvent: (event: AgentEvent) => void = () => {};
  print(text: string) {
    this.printed.push(text);
  }
  clearScreen() {
    this.cleared++;
  }
  agentEvent(event: AgentEvent) {
    this.events.push(event);
    this.onEvent(event);
  }
  turnStarted() {}
  turnEnded(outcome: TurnOutcome) {
    this.outcomes.push(outcome);
  }
  statusChanged() {}
  async askClarify(question: string) {
    this.printed.push(`asked: ${question}`);
    return this.clarifyAnswer;
  }
  async askApproval(request: ApprovalRequest) {
    this.approvals.push(request);
    return this.approvalAnswer;
  }
  exit() {
    this.exited = true;
  }
  get lastPrint(): string {
    return this.printed.at(-1) ?? "";
  }
}
