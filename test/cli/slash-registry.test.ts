import assert from "node:assert/strict";
import { test } from "node:test";
import { createSlashRegistry } from "../../src/cli/slash/commands.js";
import { describeUnresolved, parseSlashInput, type SlashCommand, SlashRegistry } from "../../src/cli/slash/registry.js";

const noop = () => {};
const cmd = (name: string, aliases: string[] = []): SlashCommand => ({
  name,
  aliases,
  description: `${name} things`,
  category: "session",
  run: noop,
});

function nameOf(resolution: ReturnType<SlashRegistry["resolve"]>): string | undefined {
  return resolution?.kind === "command" ? resolution.command.name : undefined;
}

test("parses a slash line into name and arguments; plain text and paths are not commands", () => {
  assert.deepEqual(parseSlashInput("/title   My long talk "), { name: "title", args: "My long talk" });
  assert.deepEqual(parseSlashInput("/HELP"), { name: "help", args: "" });
  assert.deepEqual(parseSlashInput("/steer look\nat the tests"), { name: "steer", args: "look\nat the tests" });
  assert.equal(parseSlashInput("hello /help"), undefined);
  assert.equal(parseSlashInput("/usr/bin/env is broken"), undefined);
  assert.equal(parseSlashInput("/"), undefined);
});

test("resolves exact names, aliases and unique prefixes", () => {
  const registry = new SlashRegistry([cmd("new", ["reset"]), cmd("history"), cmd("help"), cmd("quit", ["exit", "q"])]);
  assert.equal(nameOf(registry.resolve("/new")), "new");
  assert.equal(nameOf(registry.resolve("/reset")), "new");
  assert.equal(nameOf(registry.resolve("/res")), "new", "a prefix of an alias counts");
  assert.equal(nameOf(registry.resolve("/his")), "history");
  assert.equal(nameOf(registry.resolve("/q")), "quit", "an exact alias beats prefixes");
  assert.equal(nameOf(registry.resolve("/ex")), "quit");
  const resolved = registry.resolve("/hi some words");
  assert.equal(resolved?.kind === "command" && resolved.args, "some words");
});

test("an ambiguous prefix names every candidate", () => {
  const registry = new SlashRegistry([cmd("help"), cmd("history"), cmd("new")]);
  const resolution = registry.resolve("/h");
  assert.equal(resolution?.kind, "ambiguous");
  assert.deepEqual(resolution?.kind === "ambiguous" && resolution.candidates, ["help", "history"]);
  assert.equal(describeUnresolved(resolution!), "/h is ambiguous: /help, /history");
});

test("an unknown command is reported with a close suggestion", () => {
  const registry = new SlashRegistry([cmd("help"), cmd("history")]);
  const resolution = registry.resolve("/hlep");
  assert.equal(resolution?.kind, "unknown");
  assert.match(describeUnresolved(resolution!), /unknown command \/hlep\. Did you mean \/help\?/);
  const far = registry.resolve("/zzz");
  assert.match(describeUnresolved(far!), /^unknown command \/zzz\. Type \/help/);
});

test("a name or alias can be registered only once", () => {
  const registry = new SlashRegistry([cmd("new", ["reset"])]);
  assert.throws(() => registry.register(cmd("reset")), /already taken by \/new/);
});

test("the built-in registry has every documented command and alias, and /help lists them all", () => {
  const registry = createSlashRegistry();
  const expected = [
    "new",
    "clear",
    "history",
    "retry",
    "undo",
    "title",
    "resume",
    "sessions",
    "compress",
    "goal",
    "agents",
    "stop",
    "steer",
    "queue",
    "model",
    "tools",
    "toolsets",
    "cron",
    "memory",
    "skills",
    "reload-mcp",
    "usage",
    "context",
    "verbose",
    "reasoning",
    "personality",
    "yolo",
    "mode",
    "build",
    "rollback",
    "learn",
    "help",
    "quit",
  ];
  assert.deepEqual(
    registry
      .list()
      .map((c) => c.name)
      .sort(),
    [...expected].sort(),
  );
  assert.equal(registry.get("reset")?.name, "new");
  assert.equal(registry.get("exit")?.name, "quit");
  const help = registry.helpLines().join("\n");
  for (const name of expected) assert.match(help, new RegExp(`/${name}\\b`));
  assert.equal(nameOf(registry.resolve("/tools")), "tools", "an exact name wins over a longer one it prefixes");
  assert.equal(registry.resolve("/s")?.kind, "ambiguous");
});
