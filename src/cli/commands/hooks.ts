/**
 * `hermes hooks list|test|approve`: the hooks plugins register and the shell hooks config.yaml
 * declares. A shell hook runs only after `approve` (consent is given per exact command; editing
 * a command needs a new approval).
 */
import type { Command } from "commander";
import type { HookEvent } from "../../agent/hooks.js";
import { UsageError } from "../../runtime/errors.js";
import type { ShellHook } from "../../runtime/plugins/shell-hooks.js";
import { type CommandIo, processIo } from "./config.js";

async function context() {
  const [{ hermesHome }, { loadConfig }, shell, hooks] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../../runtime/plugins/shell-hooks.js"),
    import("../../agent/hooks.js"),
  ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  return { home, config, shell, hooks };
}

/** A sample of what `event` passes, for `hermes hooks test`. */
function samplePayload(event: HookEvent, tool: string): Record<string, unknown> {
  const session = { sessionId: "hooks-test", platform: "cli" };
  const call = { sessionId: "hooks-test", toolName: tool, args: { command: "echo hello" }, callId: "call_test" };
  switch (event) {
    case "on_session_start":
      return { ...session, model: "test-model", cwd: process.cwd() };
    case "pre_llm_call":
      return { ...session, userMessage: "hello" };
    case "post_llm_call":
      return { ...session, userMessage: "hello", response: "hi", completed: true, toolCalls: 0 };
    case "pre_tool_call":
      return call;
    case "post_tool_call":
      return { ...call, result: "hello", durationMs: 3, failed: false };
    case "transform_tool_result":
      return { ...call, result: "hello" };
    case "on_compress":
      return {
        ...session,
        newSessionId: session.sessionId,
        inPlace: true,
        messagesBefore: 40,
        messagesAfter: 8,
        tokensBefore: 90000,
        tokensAfter: 12000,
      };
    case "on_session_end":
      return { ...session, messages: 4, reason: "test" };
    default:
      return { parentSessionId: "hooks-test", goal: "a task", result: "done", status: "completed" };
  }
}

export function registerHooksCommands(program: Command, io: CommandIo = processIo): Command {
  const hooks = program
    .command("hooks")
    .description("plugin hooks and the shell hooks in config.yaml (docs/plugins.md)");

  hooks
    .command("list", { isDefault: true })
    .description("every hook by event, with each shell hook's approval")
    .action(async () => {
      const { home, config, shell } = await context();
      const { hooks: declared, problems } = shell.configuredShellHooks(config);
      const { loadPlugins } = await import("../../runtime/plugins/loader.js");
      const plugins = await loadPlugins({ home, config });
      const lines: string[] = [];
      for (const { owner, item } of plugins.hooks) lines.push(`${item.event}  plugin ${owner}`);
      for (const hook of declared) {
        const state = shell.isApproved(home, config, hook) ? "approved" : "NOT APPROVED (does not run)";
        const matcher = hook.matcher ? ` [tools matching ${hook.matcher}]` : "";
        lines.push(`${hook.event}  shell ${hook.id}  ${state}${matcher}\n    ${hook.command}`);
      }
      for (const problem of problems) lines.push(`problem: ${problem.message}`);
      io.out(
        lines.length ? lines.join("\n") : "No hooks: no plugin registers one and config.yaml has no hooks: section.",
      );
    });

  hooks
    .command("approve [ids...]")
    .description("let shell hooks from config.yaml run (by id, or --all)")
    .option("--all", "approve every shell hook config.yaml declares now")
    .action(async (ids: string[], opts: { all?: boolean }) => {
      const { home, config, shell } = await context();
      const { hooks: declared } = shell.configuredShellHooks(config);
      const pending = declared.filter((hook) => !shell.isApproved(home, config, hook));
      let chosen: ShellHook[];
      if (opts.all) chosen = pending;
      else if (ids.length > 0) {
        chosen = declared.filter((hook) => ids.includes(hook.id));
        const unknown = ids.filter((id) => !declared.some((hook) => hook.id === id));
        if (unknown.length)
          throw new UsageError(`no shell hook with id ${unknown.join(", ")} (hermes hooks list shows the ids)`);
      } else {
        if (pending.length === 0) {
          io.out("Every shell hook in config.yaml is approved.");
          return;
        }
        throw new UsageError(
          `${pending.length} shell hook(s) await approval; read them with hermes hooks list, then run hermes hooks approve ID... or --all`,
        );
      }
      shell.approveShellHooks(home, chosen);
      for (const hook of chosen) io.out(`approved ${hook.event} ${hook.id}: ${hook.command}`);
      if (chosen.length === 0) io.out("Nothing to approve.");
    });

  hooks
    .command("test <event>")
    .description("run an event's hooks on a sample payload and show what each decided")
    .option("--payload <json>", "the payload to send instead of the sample")
    .option("--tool <name>", "tool name for tool events", "terminal")
    .action(async (event: string, opts: { payload?: string; tool: string }) => {
      const { home, config, shell, hooks: hookModule } = await context();
      if (!hookModule.isHookEvent(event)) {
        throw new UsageError(`"${event}" is not a hook event (one of ${hookModule.HOOK_EVENTS.join(", ")})`);
      }
      let payload: Record<string, unknown>;
      try {
        payload = opts.payload
          ? (JSON.parse(opts.payload) as Record<string, unknown>)
          : samplePayload(event, opts.tool);
      } catch (error) {
        throw new UsageError(`--payload is not JSON: ${(error as Error).message}`);
      }
      const { loadPlugins } = await import("../../runtime/plugins/loader.js");
      const plugins = await loadPlugins({ home, config });
      const handlers: Array<{ owner: string; run: (p: unknown) => unknown }> = [];
      for (const { owner, item } of plugins.hooks)
        if (item.event === event) handlers.push({ owner: `plugin ${owner}`, run: item.handler as never });
      for (const hook of shell.configuredShellHooks(config).hooks.filter((h) => h.event === event)) {
        if (!shell.isApproved(home, config, hook)) {
          io.out(`shell ${hook.id}: skipped, not approved (${hook.command})`);
          continue;
        }
        handlers.push({
          owner: `shell ${hook.id}`,
          run: shell.shellHookHandler(hook, { home, cwd: process.cwd() }) as never,
        });
      }
      if (handlers.length === 0) io.out(`No hooks run on ${event}.`);
      for (const handler of handlers) {
        const started = performance.now();
        try {
          const answer = await handler.run(payload);
          const ms = Math.round(performance.now() - started);
          io.out(`${handler.owner}: ${answer === undefined ? "no decision" : JSON.stringify(answer)} (${ms} ms)`);
        } catch (error) {
          io.out(`${handler.owner}: failed: ${(error as Error).message}`);
          io.setExitCode(1);
        }
      }
    });
  return hooks;
}
