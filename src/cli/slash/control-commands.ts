/** Slash commands that steer a running turn, change settings, or report on the session. */
import { resolveToolNames } from "../../agent/options.js";
import { resolveProvider } from "../../llm/providers.js";
import { REASONING_EFFORTS } from "../../state/config-constants.js";
import { MemoryStore, type MemoryTarget } from "../../state/memory-store.js";
import { hermesHome, hermesPaths } from "../../state/paths.js";
import { isPermissionMode, PERMISSION_MODE_CYCLE, type PermissionMode } from "../../tools/permissions/gate.js";
import { getToolset, listToolsets } from "../../tools/toolsets.js";
import { confirmFirst } from "./confirm.js";
import { type SlashContext, TOOL_PROGRESS_MODES, type ToolProgressMode } from "./context.js";
import type { SlashCommand } from "./registry.js";
import { oneLine } from "./session-commands.js";

type Command = SlashCommand<SlashContext>;

/** `provider/model` switches both when the first part names a provider; anything else is a model id. */
export function parseModelArgument(arg: string): { model: string; provider?: string } {
  const slash = arg.indexOf("/");
  if (slash > 0) {
    const provider = resolveProvider(arg.slice(0, slash));
    const model = arg.slice(slash + 1);
    if (provider && model) return { provider: provider.id, model };
  }
  return { model: arg };
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function formatCost(cost: number | undefined): string {
  if (cost === undefined) return "unknown";
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

const controlCommands: Command[] = [
  {
    name: "stop",
    description: "interrupt the running turn",
    category: "control",
    whileBusy: true,
    run(_args, ctx) {
      if (!ctx.busy) return ctx.print("Nothing is running.");
      ctx.stop();
    },
  },
  {
    name: "steer",
    args: "TEXT",
    description: "add a note the agent reads with its next tool result, without stopping it",
    category: "control",
    whileBusy: true,
    run(args, ctx) {
      if (!args) return ctx.print("Usage: /steer TEXT");
      ctx.runtime.agent.steer(args);
      ctx.print(
        ctx.busy
          ? "Steering note sent: the agent reads it after its current tool call."
          : "Noted: it goes with your next message.",
      );
    },
  },
  {
    name: "queue",
    args: "TEXT",
    description: "send a message after the current turn finishes",
    category: "control",
    whileBusy: true,
    run(args, ctx) {
      if (!args) return ctx.print("Usage: /queue TEXT");
      if (ctx.busy) ctx.print("Queued: it runs when the current turn ends.");
      ctx.enqueue(args);
    },
  },
];

const settingsCommands: Command[] = [
  {
    name: "model",
    args: "[PROVIDER/MODEL]",
    description: "show the model, or switch it for this session",
    category: "config",
    async run(args, ctx) {
      const { runtime } = ctx;
      if (!args) {
        const where = runtime.baseUrl ? ` at ${runtime.baseUrl}` : "";
        return ctx.print(
          `Model: ${runtime.model} (provider ${runtime.provider}${where}). Switch with /model PROVIDER/MODEL.`,
        );
      }
      if (ctx.busy) return ctx.print("The agent is working: /stop it or wait before switching models.");
      const { model, provider } = parseModelArgument(args);
      try {
        await ctx.switchModel(model, provider);
      } catch (error) {
        // The session stays on what it was using: nothing is half-switched.
        const reason = error instanceof Error ? error.message : String(error);
        return ctx.print(`Not switched (still ${runtime.model} on ${runtime.provider}): ${reason}`);
      }
      const where = ctx.runtime.baseUrl ? ` at ${ctx.runtime.baseUrl}` : "";
      ctx.print(`Now using ${ctx.runtime.model} (provider ${ctx.runtime.provider}${where}) for this session.`);
    },
  },
  {
    name: "tools",
    description: "list the tools the agent can call in this session",
    category: "config",
    whileBusy: true,
    async run(_args, ctx) {
      const { agent } = ctx.runtime;
      const registry = agent.options.registry;
      const names = await resolveToolNames(agent.options);
      if (!registry || names.length === 0) return ctx.print("No tools are enabled in this session.");
      const lines = names.map((name) => {
        const spec = registry.get(name);
        return `  ${spec?.emoji ?? "⚙️"} ${name.padEnd(16)} ${oneLine(spec?.description ?? "", 70)}`;
      });
      ctx.print([`${names.length} tools enabled:`, ...lines].join("\n"));
    },
  },
  {
    name: "toolsets",
    description: "list toolsets; enabled ones are marked",
    category: "config",
    whileBusy: true,
    run(_args, ctx) {
      const enabled = new Set(ctx.runtime.agent.options.enabledToolsets ?? []);
      const lines = listToolsets()
        .filter((name) => enabled.has(name) || !name.startsWith("hermes-"))
        .map((name) => {
          const toolset = getToolset(name);
          const mark = enabled.has(name) ? "✓" : " ";
          return `  ${mark} ${name.padEnd(16)} ${toolset?.description ?? ""}`;
        });
      ctx.print([...lines, "Change them with `hermes config set toolsets a,b` or `hermes chat -t a,b`."].join("\n"));
    },
  },
  {
    name: "cron",
    args: "[pause|resume|remove|run ID]",
    description: "scheduled jobs: list them, or pause, resume, remove or run one",
    category: "config",
    whileBusy: true,
    async run(args, ctx) {
      const { openCronStore } = await import("../../state/cron-store.js");
      const { storeLocation } = await import("../../state/store-target.js");
      const { cronToolBackend } = await import("../../cron/tool-backend.js");
      const { cronCommand } = await import("../../tools/builtin/cron-command.js");
      const home = ctx.runtime.agent.options.home ?? hermesHome();
      const store = await openCronStore(await storeLocation(home));
      try {
        ctx.print(await cronCommand(cronToolBackend(store, { home }), null, args));
      } finally {
        store.close();
      }
    },
  },
  {
    name: "memory",
    description: "show what the agent remembers (MEMORY.md and USER.md)",
    category: "config",
    whileBusy: true,
    run(_args, ctx) {
      const { config, agent } = ctx.runtime;
      const store = new MemoryStore({
        dir: hermesPaths(agent.options.home).memoriesDir,
        memoryCharLimit: config.memory.memory_char_limit,
        userCharLimit: config.memory.user_char_limit,
      });
      const lines: string[] = [];
      for (const [target, label] of [
        ["memory", "Agent notes (MEMORY.md)"],
        ["user", "About you (USER.md)"],
      ] as Array<[MemoryTarget, string]>) {
        const entries = store.entries(target);
        lines.push(`${label}: ${store.usage(target, entries)}`);
        for (const entry of entries) lines.push(`  • ${oneLine(entry, 110)}`);
        if (entries.length === 0) lines.push("  (empty)");
      }
      ctx.print(lines.join("\n"));
    },
  },
  {
    name: "reload-mcp",
    args: "[-y]",
    description: "restart the MCP servers from config.yaml and pick up their tools",
    category: "config",
    async run(args, ctx) {
      // A new tool list invalidates the provider's cached prompt: only an empty session has none to lose.
      const question = async () =>
        (await ctx.messages()).length === 0
          ? undefined
          : "Reload the MCP servers? The tool list changes, so the provider's cached prompt for this conversation is lost and the next turn costs more.";
      const gate = await confirmFirst(ctx, "mcp_reload", args, question);
      if (!gate.proceed) return;
      const lines = await ctx.runtime.reloadMcp();
      ctx.print(lines.join("\n"));
      gate.after();
    },
  },
  {
    name: "skills",
    description: "list installed skills",
    category: "config",
    whileBusy: true,
    run(_args, ctx) {
      const skills = ctx.skills();
      if (skills.length === 0) {
        ctx.print("No skills installed. Skills live in ~/.hermes/skills/ and .hermes/skills/ (see hermes skills).");
        return;
      }
      const lines = skills.map((skill) => `  /${skill.name} — ${skill.description}`);
      ctx.print(["Skills (type /name followed by your request to use one):", ...lines].join("\n"));
    },
  },
  {
    name: "verbose",
    args: "[off|new|all|verbose]",
    description: "how much tool progress to show (cycles without an argument)",
    category: "config",
    whileBusy: true,
    run(args, ctx) {
      const modes = TOOL_PROGRESS_MODES;
      let next: ToolProgressMode;
      if (args) {
        if (!(modes as readonly string[]).includes(args)) return ctx.print(`Usage: /verbose [${modes.join("|")}]`);
        next = args as ToolProgressMode;
      } else {
        next = modes[(modes.indexOf(ctx.display.toolProgress) + 1) % modes.length]!;
      }
      ctx.display.toolProgress = next;
      ctx.print(`Tool progress: ${next}`);
    },
  },
  {
    name: "reasoning",
    args: "[show|hide|LEVEL]",
    description: "toggle the model's reasoning display, or set the effort (none..xhigh)",
    category: "config",
    whileBusy: true,
    run(args, ctx) {
      const arg = args.toLowerCase();
      if (!arg || ["show", "hide", "on", "off"].includes(arg)) {
        ctx.display.showReasoning = arg ? arg === "show" || arg === "on" : !ctx.display.showReasoning;
        return ctx.print(`Reasoning display: ${ctx.display.showReasoning ? "on" : "off"}`);
      }
      const levels = REASONING_EFFORTS.filter(Boolean);
      if (!(levels as readonly string[]).includes(arg)) {
        return ctx.print(`Usage: /reasoning [show|hide|${levels.join("|")}]`);
      }
      ctx.runtime.agent.options.reasoningEffort = arg;
      ctx.print(`Reasoning effort: ${arg} (from the next model call)`);
    },
  },
  {
    name: "personality",
    args: "[NAME|none]",
    description: "list personalities, or take one on for this session (personalities in config.yaml add more)",
    category: "config",
    async run(args, ctx) {
      const { personalities, choosePersonality, listPersonalities } = await import("../../runtime/personalities.js");
      const known = personalities(ctx.runtime.config.personalities, () => {});
      const options = ctx.runtime.agent.options;
      const choice = choosePersonality(args, known);
      if (typeof choice === "string") return ctx.print(choice);
      if (choice.kind === "list") return ctx.print(listPersonalities(known, options.personality?.name));
      if (choice.kind === "clear") {
        delete options.personality;
        return ctx.print("Personality: none (from the next model call)");
      }
      options.personality = { name: choice.personality.name, prompt: choice.personality.prompt };
      ctx.print(`Personality: ${choice.personality.name} (from the next model call)`);
    },
  },
  {
    name: "mode",
    description: "show or set the permission mode: plan (read-only), ask, auto-edit, yolo (Shift+Tab cycles)",
    category: "config",
    whileBusy: true,
    args: "[plan|ask|auto-edit|yolo]",
    run(args, ctx) {
      const wanted = args.trim();
      if (!wanted) return ctx.print(`${describeMode(ctx.permissionMode)}\nModes: ${PERMISSION_MODE_CYCLE.join(", ")}`);
      if (!isPermissionMode(wanted)) return ctx.print(`Usage: /mode [${PERMISSION_MODE_CYCLE.join("|")}]`);
      ctx.setMode(wanted);
      ctx.print(describeMode(wanted));
    },
  },
  {
    name: "build",
    description: "leave plan mode (to ask) and carry out the plan",
    category: "config",
    async run(args, ctx) {
      if (ctx.permissionMode !== "plan") return ctx.print("Not in plan mode (/mode plan or Shift+Tab enters it).");
      ctx.setMode("ask");
      ctx.print(describeMode("ask"));
      await ctx.send(args.trim() || "The plan is approved. Carry it out now.");
    },
  },
  {
    name: "yolo",
    description: "toggle running dangerous commands without asking (hardline blocks still apply)",
    category: "config",
    whileBusy: true,
    run(_args, ctx) {
      const on = !ctx.runtime.approvals.yolo;
      ctx.setYolo(on);
      ctx.print(on ? "YOLO on: dangerous commands run without asking." : "YOLO off: dangerous commands ask first.");
    },
  },
];

const MODE_TEXT: Record<PermissionMode, string> = {
  plan: "Plan mode: read-only. Edits and commands that change things are refused; the agent ends with a plan (/build carries it out).",
  ask: "Ask mode: dangerous commands and risky writes ask first.",
  "auto-edit": "Auto-edit mode: file edits inside the project run without asking; commands are still checked.",
  yolo: "YOLO mode: everything runs without asking (hardline blocks and deny rules still apply).",
};

/** One line saying what a permission mode does. */
export function describeMode(mode: PermissionMode): string {
  return MODE_TEXT[mode];
}

const infoCommands: Command[] = [
  {
    name: "usage",
    description: "tokens, cost and calls in this session",
    category: "info",
    whileBusy: true,
    run(_args, ctx) {
      const u = ctx.usage();
      ctx.print(
        [
          `Tokens: ${formatTokens(u.inputTokens)} in, ${formatTokens(u.outputTokens)} out` +
            ` (cache: ${formatTokens(u.cacheReadTokens)} read, ${formatTokens(u.cacheWriteTokens)} written;` +
            ` reasoning ${formatTokens(u.reasoningTokens)})`,
          `Cost: ${formatCost(u.cost)}${u.cost === undefined ? " (no price known for this model)" : " (estimate)"}`,
          `Turns: ${u.turns}, model calls: ${u.apiCalls}, tool calls: ${u.toolCalls}`,
        ].join("\n"),
      );
    },
  },
  {
    name: "context",
    description: "how full the context window is",
    category: "info",
    whileBusy: true,
    async run(_args, ctx) {
      const status = await ctx.contextStatus();
      const filled = Math.min(20, Math.round(status.percent / 5));
      const bar = `[${"█".repeat(filled)}${"░".repeat(20 - filled)}]`;
      ctx.print(
        `Context: ${bar} ${status.percent}% — about ${formatTokens(status.tokens)} of ${formatTokens(status.window)} tokens. ` +
          "Use /compress to summarise older turns, or /new to start over.",
      );
    },
  },
  {
    name: "help",
    description: "list commands and keys",
    category: "info",
    whileBusy: true,
    run(_args, ctx) {
      ctx.print(
        [
          ...ctx.commands.helpLines(),
          "Keys: Enter sends, Alt+Enter (or Shift+Enter) adds a line, ↑/↓ browse history, Ctrl+C interrupts (twice exits).",
          "Commands may be shortened to any unique prefix (/his → /history).",
        ].join("\n"),
      );
    },
  },
  {
    name: "quit",
    aliases: ["exit", "q"],
    description: "leave hermes",
    category: "info",
    whileBusy: true,
    run(_args, ctx) {
      ctx.exit();
    },
  },
];

export { controlCommands, infoCommands, settingsCommands };
