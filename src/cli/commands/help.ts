/**
 * `hermes help [topic]`: a command's help, or one of the guides shipped in the package's docs/
 * (`hermes help providers` prints docs/providers.md), so error messages can point at a topic a
 * user has, wherever hermes is installed.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function docsDir(): Promise<string> {
  const { join } = await import("node:path");
  const { packageRoot } = await import("../../util/package-root.js");
  return join(packageRoot(import.meta.url), "docs");
}

export async function helpTopics(): Promise<string[]> {
  const { readdirSync } = await import("node:fs");
  try {
    return readdirSync(await docsDir())
      .filter((name) => name.endsWith(".md"))
      .map((name) => name.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

export function registerHelpCommand(program: Command, io: CommandIo = processIo): Command {
  program.helpCommand(false);
  return program
    .command("help [topic]")
    .description("help for a command, or a guide: hermes help providers (hermes help lists the guides)")
    .action(async (topic: string | undefined) => {
      const topics = await helpTopics();
      if (!topic) {
        io.out(program.helpInformation().trimEnd());
        io.out(`\nGuides (hermes help TOPIC): ${topics.join(", ")}`);
        return;
      }
      const command = program.commands.find((c) => c.name() === topic || c.aliases().includes(topic));
      if (command && command.name() !== "help") {
        io.out(command.helpInformation().trimEnd());
        return;
      }
      if (topics.includes(topic)) {
        const { readFileSync } = await import("node:fs");
        const { join } = await import("node:path");
        io.out(readFileSync(join(await docsDir(), `${topic}.md`), "utf8").trimEnd());
        return;
      }
      const { nearestNames } = await import("../../util/edit-distance.js");
      const near = nearestNames(topic, [...topics, ...program.commands.map((c) => c.name())], 2);
      throw new UsageError(
        `no help topic "${topic}"${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(" or ")}?)` : ""}. ` +
          `Guides: ${topics.join(", ")}.`,
      );
    });
}
