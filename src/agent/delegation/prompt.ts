/** The system prompt of a subagent: its task, what it was told, and how to report back. */

export interface SubagentPromptInput {
  goal: string;
  context?: string;
  cwd: string;
  /** Set when the subagent may delegate further (orchestrator role within the depth limit). */
  orchestrator?: { depth: number; maxSpawnDepth: number };
}

export function buildSubagentPrompt(input: SubagentPromptInput): string {
  const sections = [
    "You are a subagent: another agent handed you one task and is waiting for your report. You cannot see its conversation and you cannot ask the user anything, so work from what is written here.",
    `## Task\n${input.goal.trim()}`,
  ];
  const context = input.context?.trim();
  if (context) sections.push(`## Context from the agent that delegated this\n${context}`);
  sections.push(
    `## Working directory\n${input.cwd}\nRun file and shell work there unless the task names another path. If a path is not given, look for it before acting on it.`,
    [
      "## How to finish",
      "Use your tools to complete the task, then stop calling tools and reply with a concise summary:",
      "- what you did;",
      "- what you found or produced (name any files you created or changed);",
      "- anything unresolved, blocked or uncertain.",
      "That reply is all the delegating agent will see, so make it complete but short. Dangerous commands are refused automatically; if one is refused, find another way or report it as unresolved.",
    ].join("\n"),
  );
  if (input.orchestrator) {
    const { depth, maxSpawnDepth } = input.orchestrator;
    const childrenAreLeaves = depth + 1 >= maxSpawnDepth;
    sections.push(
      [
        "## Delegating further",
        "You have the delegate_task tool. Use it when your task splits into independent parts that can run in parallel, or when one part would flood your context with detail. Do simple or single-step work yourself, and never pass your whole task to a single helper.",
        "Combine what your helpers report into your own summary; you answer for the result.",
        `You are at depth ${depth} of a delegation tree limited to depth ${maxSpawnDepth}.${childrenAreLeaves ? " Your helpers cannot delegate again." : ""}`,
      ].join("\n"),
    );
  }
  return sections.join("\n\n");
}
