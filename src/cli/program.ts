/**
 * The command tree of `hermes`. Only commander and tiny modules load here; each command's
 * implementation is imported inside its action so `hermes --help` stays fast.
 */
import { Command, CommanderError, Option } from "commander";
import { packageVersion } from "../util/version.js";
import { registerAcpCommand } from "./commands/acp.js";
import { registerAuthCommands } from "./commands/auth.js";
import { registerBackupCommands } from "./commands/backup.js";
import { registerCheckpointsCommands } from "./commands/checkpoints.js";
import { registerConfigCommands } from "./commands/config.js";
import { registerCronCommands } from "./commands/cron.js";
import { registerCuratorCommands } from "./commands/curator.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { registerGatewayCommands } from "./commands/gateway.js";
import { registerHelpCommand } from "./commands/help.js";
import { registerHooksCommands } from "./commands/hooks.js";
import { registerImportCommands } from "./commands/import.js";
import { registerLearnCommands } from "./commands/learn.js";
import { registerLogsCommand } from "./commands/logs.js";
import { registerMcpCommands } from "./commands/mcp.js";
import { registerMemoryCommands } from "./commands/memory.js";
import { registerModelCommand } from "./commands/model.js";
import { registerPairingCommands } from "./commands/pairing.js";
import { registerPluginsCommands } from "./commands/plugins.js";
import { registerProfileCommands } from "./commands/profile.js";
import { registerPromptSizeCommand } from "./commands/prompt-size.js";
import { registerSessionsCommands } from "./commands/sessions.js";
import { registerSetupCommand } from "./commands/setup.js";
import { registerSkillsCommands } from "./commands/skills.js";
import { registerStatusCommand } from "./commands/status.js";
import { registerStoreCommands } from "./commands/store.js";
import { registerToolsCommand } from "./commands/tools.js";
import { EXIT, UsageError } from "./exit-codes.js";

export interface ChatFlags {
  query?: string;
  queryFile?: string;
  model?: string;
  provider?: string;
  baseUrl?: string;
  apiKey?: string;
  apiMode?: string;
  toolsets?: string;
  maxTurns?: string;
  resume?: string;
  continue?: boolean;
  yolo?: boolean;
  mode?: "plan" | "ask" | "auto-edit" | "yolo";
  quiet?: boolean;
  verbose?: boolean;
  json?: boolean;
  saveTrajectories?: boolean;
  finalOnly?: boolean;
}

function addChatOptions(cmd: Command): Command {
  return cmd
    .option("-q, --query <text>", "run one prompt non-interactively and print the answer")
    .option("--query-file <path>", "read the prompt from a file ('-' for stdin)")
    .option("-m, --model <model>", "model to use (overrides model.default)")
    .option("--provider <id>", "provider id or alias (openrouter, anthropic, openai, custom, ...)")
    .option("--base-url <url>", "API base URL (any OpenAI-compatible server)")
    .option("--api-key <key>", "API key (prefer the provider's env var)")
    .addOption(
      new Option("--api-mode <mode>", "wire protocol").choices([
        "chat_completions",
        "codex_responses",
        "anthropic_messages",
        "bedrock_converse",
      ]),
    )
    .option("-t, --toolsets <list>", "comma-separated toolsets to enable")
    .option("--max-turns <n>", "maximum tool-calling iterations (agent.max_turns)")
    .option("-r, --resume <sessionId>", "resume a session by id")
    .option("-c, --continue", "continue the most recent session")
    .option("--yolo", "run dangerous commands without asking (hardline blocks still apply)")
    .addOption(
      new Option("--mode <mode>", "permission mode to start in (approvals.default_mode)").choices([
        "plan",
        "ask",
        "auto-edit",
        "yolo",
      ]),
    )
    .option("-Q, --quiet", "print only the answer, no progress")
    .option("-v, --verbose", "show debug detail and stack traces")
    .option("--json", "print one JSON result object (one-shot only)")
    .option(
      "--save-trajectories",
      "append each finished run to the ShareGPT trajectory files (agent.save_trajectories)",
    );
}

/**
 * The command tree. `only: "chat"` builds the root and `chat` alone, for a run whose first word
 * is `chat`: commander then parses exactly as with the whole tree (a subcommand's options,
 * help and errors do not involve its siblings), and the run skips registering some thirty
 * command groups it cannot reach.
 */
export function buildProgram(only?: "chat"): Command {
  const program = new Command("hermes")
    .description("Hermes: a self-improving AI agent with tools, memory and skills")
    .version(`hermes ${packageVersion()}`, "-V, --version", "print the version")
    .option("-p, --profile <name>", "use the profile at ~/.hermes/profiles/NAME")
    .option("-z, --oneshot <text>", "run one prompt and print only the final text")
    .showHelpAfterError("(run 'hermes --help' for usage)")
    .enablePositionalOptions()
    .exitOverride();

  // Profiles and .env must be in place before any command reads HERMES_HOME.
  program.hook("preAction", async () => {
    const { applyProfile, applyStickyProfile } = await import("../state/profiles.js");
    const { loadDotEnv } = await import("../state/dotenv.js");
    const { hermesHome } = await import("../state/paths.js");
    const profile = program.opts<{ profile?: string }>().profile;
    if (profile) applyProfile(profile);
    else applyStickyProfile();
    loadDotEnv(hermesHome());
  });

  addChatOptions(program);
  program.action(async (opts: ChatFlags & { oneshot?: string }) => {
    const { runChat } = await import("./commands/chat.js");
    if (opts.oneshot !== undefined && (opts.query !== undefined || opts.queryFile !== undefined)) {
      throw new UsageError("-z TEXT is itself the prompt: give -z, or -q / --query-file, not both");
    }
    if (opts.oneshot !== undefined) {
      await runChat({ ...opts, query: opts.oneshot, finalOnly: true, quiet: true });
    } else {
      await runChat(opts);
    }
  });

  addChatOptions(program.command("chat").description("chat with the agent (interactive, or one-shot with -q)")).action(
    async (opts: ChatFlags) => {
      const { runChat } = await import("./commands/chat.js");
      await runChat({ ...program.opts(), ...opts });
    },
  );
  if (only === "chat") return program;

  registerConfigCommands(program);
  registerAuthCommands(program);
  registerSessionsCommands(program);
  registerProfileCommands(program);
  registerMcpCommands(program);
  registerSkillsCommands(program);
  registerSetupCommand(program);
  registerModelCommand(program);
  registerDoctorCommand(program);
  registerToolsCommand(program);
  registerGatewayCommands(program);
  registerPairingCommands(program);
  registerCronCommands(program);
  registerImportCommands(program);
  registerLogsCommand(program);
  registerStatusCommand(program);
  registerPromptSizeCommand(program);
  registerStoreCommands(program);
  registerBackupCommands(program);
  registerAcpCommand(program);
  registerPluginsCommands(program);
  registerHooksCommands(program);
  registerMemoryCommands(program);
  registerCheckpointsCommands(program);
  registerLearnCommands(program);
  registerCuratorCommands(program);
  registerHelpCommand(program);

  program
    .command("version")
    .description("print the version")
    .action(() => {
      process.stdout.write(`hermes ${packageVersion()}\n`);
    });

  return program;
}

/** Parse argv, run the command, and map failures to the documented exit codes. */
/** A first word that is not a command (`hermes sesions`): say so, with the nearest commands. */
async function unknownCommand(program: Command, argv: string[]): Promise<UsageError | undefined> {
  const first = argv[2];
  if (first === undefined || first.startsWith("-")) return undefined;
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (names.includes(first)) return undefined;
  const { nearestNames } = await import("../util/edit-distance.js");
  const near = nearestNames(first, names, 2);
  const hint = near.length > 0 ? ` (did you mean ${near.map((n) => `'${n}'`).join(" or ")}?)` : "";
  return new UsageError(`unknown command '${first}'${hint}. To ask the agent something, use hermes chat -q "...".`);
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram(argv[2] === "chat" ? "chat" : undefined);
  try {
    const unknown = await unknownCommand(program, argv);
    if (unknown) {
      const { runPluginCliCommand } = await import("./plugin-cli.js");
      const code = await runPluginCliCommand(argv);
      if (code !== undefined) return code;
      throw unknown;
    }
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
      if (error.code === "commander.help") return EXIT.ok;
      if (argv.includes("--json")) {
        // Commander said what was wrong on stderr; --json still gets its one object on stdout.
        const { printJsonFailure } = await import("./commands/chat.js");
        printJsonFailure(new UsageError(error.message.replace(/^error: /, "")), Date.now());
      }
      return EXIT.usage;
    }
    const reported = (error as { reported?: boolean }).reported === true;
    if (error instanceof UsageError) {
      if (!reported) process.stderr.write(`hermes: ${error.message}\n`);
      return EXIT.usage;
    }
    const verbose = process.argv.includes("-v") || process.argv.includes("--verbose");
    const message = error instanceof Error ? error.message : String(error);
    if (!reported) process.stderr.write(`hermes: ${message}\n`);
    if (verbose && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return (error as { exitCode?: number }).exitCode ?? EXIT.error;
  }
}
