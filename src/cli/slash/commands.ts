/** The registry of every built-in slash command, shared by the TUI and the plain line mode. */
import { agentsCommand } from "./agents-command.js";
import type { SlashContext } from "./context.js";
import { controlCommands, infoCommands, settingsCommands } from "./control-commands.js";
import { goalCommand } from "./goal-command.js";
import { SlashRegistry } from "./registry.js";
import { sessionCommands } from "./session-commands.js";

export function createSlashRegistry(): SlashRegistry<SlashContext> {
  return new SlashRegistry<SlashContext>([
    ...sessionCommands,
    goalCommand,
    agentsCommand,
    ...controlCommands,
    ...settingsCommands,
    ...infoCommands,
  ]);
}
