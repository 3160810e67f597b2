/** One line per MCP server for the terminal: state, transport, tool count or the reason it failed. */
import type { McpServerStatus } from "./manager.js";

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function formatMcpStatusLine(status: McpServerStatus): string {
  const head = `${status.name} (${status.transport})`;
  switch (status.state) {
    case "disabled":
      return `- ${head}: disabled`;
    case "connected": {
      const timing = status.connectMs !== undefined ? ` in ${status.connectMs} ms` : "";
      const blocked = status.blocked.length > 0 ? `, ${status.blocked.length} blocked` : "";
      return `✓ ${head}: ${plural(status.tools.length, "tool")}${timing}${blocked}`;
    }
    case "connecting":
    case "idle":
      return `… ${head}: connecting`;
    case "disconnected":
      return `! ${head}: disconnected${status.error ? ` (${status.error})` : ""}; restarts on the next call`;
    default:
      return `✗ ${head}: ${status.state}${status.error ? ` (${status.error})` : ""}`;
  }
}

/** Status lines, with the blocked tools and configuration warnings under their server. */
export function formatMcpStatus(statuses: readonly McpServerStatus[]): string[] {
  const lines: string[] = [];
  for (const status of statuses) {
    lines.push(formatMcpStatusLine(status));
    for (const blocked of status.blocked) lines.push(`    blocked ${blocked.tool}: ${blocked.reason}`);
    for (const warning of status.warnings) lines.push(`    warning: ${warning}`);
  }
  return lines;
}
