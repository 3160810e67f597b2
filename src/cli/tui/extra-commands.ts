/**
 * Slash commands beyond the built-in ones, for the terminal: plugins' commands and the user's
 * `quick_commands`. A name already taken keeps its first owner.
 */
import { expandAlias, quickCommands, runQuickExec } from "../../runtime/quick-commands.js";
import type { Runtime } from "../runtime.js";
import type { SlashContext } from "../slash/context.js";
import { describeUnresolved, type SlashRegistry } from "../slash/registry.js";

/** Plugin slash commands join the built-in ones; a name already taken stays with the built-in. */
export function registerPluginCommands(
  commands: SlashRegistry<SlashContext>,
  runtime: Runtime,
  sessionId: () => string,
): void {
  for (const { owner, item } of runtime.extensions?.plugins.commands ?? []) {
    if (commands.get(item.name)) continue;
    commands.register({
      name: item.name,
      ...(item.args ? { args: item.args } : {}),
      description: `${item.description} (plugin ${owner})`,
      category: "info",
      run: async (args, ctx) => {
        try {
          const answer = await item.run(args, { platform: "cli", home: runtime.home, sessionId: sessionId() });
          if (typeof answer === "string" && answer) ctx.print(answer);
        } catch (error) {
          ctx.print(
            `/${item.name} (plugin ${owner}) failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      },
    });
  }
}

/**
 * `quick_commands`: exec ones run their shell command and print its output; aliases run the
 * command they stand for. Built-in and plugin names are taken first.
 */
export function registerQuickCommands(
  commands: SlashRegistry<SlashContext>,
  runtime: Runtime,
  print: (text: string) => void,
): void {
  const quick = quickCommands(runtime.config.quick_commands, (name) => commands.get(name) !== undefined, print);
  for (const command of quick) {
    commands.register({
      name: command.name,
      description: command.description,
      category: "info",
      ...(command.type === "alias" ? { args: "[ARGS]" } : {}),
      run: async (args, ctx) => {
        if (command.type === "exec") {
          ctx.print(await runQuickExec(command, runtime.agent.options.cwd ?? process.cwd()));
          return;
        }
        let line: string;
        try {
          line = expandAlias(`/${command.name}${args ? ` ${args}` : ""}`, quick);
        } catch (error) {
          ctx.print((error as Error).message);
          return;
        }
        const resolution = commands.resolve(line);
        if (resolution?.kind === "command") await resolution.command.run(resolution.args, ctx);
        else
          ctx.print(
            resolution ? describeUnresolved(resolution) : `/${command.name} stands for ${line}, which is no command`,
          );
      },
    });
  }
}
