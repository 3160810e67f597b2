/**
 * `hermes profile list|create|use|delete`: independent Hermes homes under
 * `~/.hermes/profiles/NAME`, selected per command with `-p NAME` or made sticky with `use`.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export function registerProfileCommands(program: Command, io: CommandIo = processIo): Command {
  const profile = program
    .command("profile")
    .description("manage profiles (separate config, secrets, memory, sessions)");

  profile
    .command("list")
    .description("list profiles; * marks the sticky default, > the one in use now")
    .action(async () => {
      const { listProfiles } = await import("../../state/profiles.js");
      for (const p of listProfiles()) {
        const marks = `${p.current ? ">" : " "}${p.sticky ? "*" : " "}`;
        io.out(`${marks} ${p.name.padEnd(20)} ${p.path}`);
      }
    });

  profile
    .command("create <name>")
    .description("create a profile")
    .option("--clone [from]", "copy config.yaml, .env, SOUL.md and memories/ from a profile (default: the current one)")
    .action(async (name: string, opts: { clone?: string | boolean }) => {
      const { createProfile, profileHome } = await import("../../state/profiles.js");
      const { hermesHome } = await import("../../state/paths.js");
      let cloneFrom: string | undefined;
      if (typeof opts.clone === "string") cloneFrom = profileHome(opts.clone);
      else if (opts.clone) cloneFrom = hermesHome();
      const home = createProfile(name, cloneFrom ? { cloneFrom } : {});
      io.out(`Created profile "${name}" at ${home}${cloneFrom ? ` (cloned from ${cloneFrom})` : ""}`);
      io.out(`Use it with: hermes -p ${name} ...   or make it the default: hermes profile use ${name}`);
    });

  profile
    .command("use <name>")
    .description("make a profile the default for later commands ('default' to go back)")
    .action(async (name: string) => {
      const { useProfile } = await import("../../state/profiles.js");
      useProfile(name);
      io.out(`Now using profile "${name}" by default`);
    });

  profile
    .command("delete <name>")
    .description("delete a profile and everything in it")
    .option("-y, --yes", "confirm the deletion")
    .action(async (name: string, opts: { yes?: boolean }) => {
      const { deleteProfile, profileExists, profileHome, ProfileError } = await import("../../state/profiles.js");
      if (!profileExists(name)) throw new ProfileError(`profile "${name}" does not exist (see hermes profile list)`);
      if (!opts.yes) {
        throw new UsageError(
          `this deletes ${profileHome(name)} with its sessions, memories and secrets; re-run with --yes to confirm`,
        );
      }
      const home = deleteProfile(name);
      io.out(`Deleted profile "${name}" (${home})`);
    });

  return profile;
}
