/**
 * Drives the real TUI in a tmux pane (120x40) against the fake provider: type, press keys,
 * and poll the screen until the expected text appears or a deadline passes.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { conversationOf, lastToolResults } from "../helpers/agent-harness.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { type Pane, TmuxServer } from "../helpers/tmux-pane.js";

let tmux: TmuxServer;
let fake: FakeProvider;
let titles: FakeProvider;
const homes: string[] = [];

before(async () => {
  tmux = TmuxServer.require();
  fake = await startFakeProvider({ models: [{ id: "scripted" }] });
  titles = await startFakeProvider({ fallback: { text: "A test session" } });
});

after(async () => {
  tmux.close();
  await fake.close();
  await titles.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** The TUI against the scripted fake provider, in a fresh home unless one is given. */
function startPane(
  name: string,
  extraArgs: string[] = [],
  home = mkdtempSync(join(tmpdir(), "hermes-tui-")),
  extraConfig = "",
): Pane {
  homes.push(home);
  useTitleEndpoint(home, titles.url);
  if (extraConfig) appendFileSync(join(home, "config.yaml"), extraConfig);
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  return tmux.startHermes(name, home, [...args, ...extraArgs]);
}

async function ready(pane: Pane): Promise<void> {
  await pane.waitFor(/Hermes Agent · custom\/scripted/);
  await pane.waitFor(/^ scripted · .*\/help/m);
}

test("a tool turn streams markdown and a tool progress line with its duration", async () => {
  fake.setScript([
    { text: "Checking.", toolCalls: [{ name: "terminal", arguments: { command: "echo tui-smoke" } }] },
    {
      text: "## Result\n\nThe shell said **tui-smoke**.\n\n- first point\n- second point",
      usage: { input: 900, output: 20 },
    },
  ]);
  const pane = startPane("tool-turn", ["--yolo"]);
  await ready(pane);
  pane.type("please run the tool");
  pane.keys("Enter");
  const screen = await pane.waitFor(/The shell said tui-smoke\./);
  assert.match(screen, /› please run the tool/);
  assert.match(screen, /Running echo tui-smoke \(\d+\.\ds\)/, "a friendly label, display.friendly_tool_labels");
  assert.match(screen, /^ *Result$/m, "the heading is rendered, not shown as ##");
  assert.match(screen, /- first point/);
  await pane.waitFor(/scripted · [\d.k]+ in \/ \d+ out · ctx \d+% · YOLO · \/help/);
});

test("Ctrl+C during a stalled stream interrupts the turn and the prompt comes back", async () => {
  fake.setScript([{ text: "I am about to stall for a long while", fault: { kind: "stall", afterChunks: 2 } }]);
  const pane = startPane("interrupt");
  await ready(pane);
  pane.type("hello");
  pane.keys("Enter");
  await pane.waitFor(/working \(Ctrl\+C to stop\)/);
  await pane.waitFor(/I am about/);
  pane.keys("C-c");
  await pane.waitFor(/\[interrupted\]/);
  await pane.waitFor(/ · \/help/);
  pane.type("are you there");
  pane.keys("Enter");
  await pane.waitFor(/› are you there\n\s*ok\b/);
});

test("/help lists the slash commands, an approval prompt starts on Deny, and /quit leaves", async () => {
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf ./hermes-tui-never-created" } }] },
    { text: "Understood, I will not delete it." },
  ]);
  const pane = startPane("help-and-approval");
  await ready(pane);
  pane.type("/help");
  pane.keys("Enter");
  await pane.waitFor(/\/quit +leave hermes/);
  const help = pane.scrollback();
  for (const name of ["/new", "/retry", "/undo", "/compress", "/steer", "/queue", "/model", "/yolo", "/usage"]) {
    assert.ok(help.includes(name), `${name} is listed`);
  }
  pane.type("clean up");
  pane.keys("Enter");
  await pane.waitFor(/dangerous command \(recursive delete\)/);
  await pane.waitFor(/Deny[\s\S]*Allow once/);
  pane.keys("Enter");
  await pane.waitFor(/Understood, I will not delete it\./);
  assert.match(lastToolResults(fake.requests.at(-1)!)[0] ?? "", /denied/);
  pane.type("/quit");
  pane.keys("Enter");
  await pane.waitFor(/HERMES-EXITED-0/);
});

test("each approval choice does what it says: once, deny, the rest of the session, always", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-tui-"));
  const victims = mkdtempSync(join(tmpdir(), "hermes-tui-victims-"));
  homes.push(victims);
  const victim = (name: string) => {
    mkdirSync(join(victims, name, "inner"), { recursive: true });
    return join(victims, name);
  };
  const [a, b, c, d] = ["a", "b", "c", "d"].map(victim) as [string, string, string, string];
  const chmod = `chmod -R 777 ${victims}`;
  const turn = (command: string, reply: string) => [
    { toolCalls: [{ name: "terminal", arguments: { command } }] },
    { text: reply },
  ];
  fake.setScript([
    ...turn(`rm -r ${a}`, "done-a"),
    ...turn(`rm -r ${b}`, "done-b"),
    ...turn(`rm -r ${c}`, "done-c"),
    ...turn(`rm -r ${d}`, "done-d"),
    ...turn(chmod, "done-chmod"),
  ]);
  const pane = startPane("approval-choices", [], home);
  await ready(pane);
  const ask = async (text: string) => {
    pane.type(text);
    pane.keys("Enter");
  };
  const choose = async (downs: number, reason: RegExp) => {
    await pane.waitFor(reason);
    await pane.waitFor(/Deny[\s\S]*Allow once/);
    for (let i = 0; i < downs; i++) pane.keys("Down");
    pane.keys("Enter");
  };
  const lastResult = () => lastToolResults(fake.requests.at(-1)!)[0] ?? "";

  await ask("first");
  await choose(1, /dangerous command \(recursive delete\)/);
  await pane.waitFor(/done-a/);
  assert.equal(existsSync(a), false, "Allow once ran the command");

  await ask("second");
  await choose(0, /dangerous command \(recursive delete\)/);
  await pane.waitFor(/done-b/);
  assert.equal(existsSync(b), true, "Allow once did not carry over; Deny kept the directory");
  assert.match(lastResult(), /denied/);

  await ask("third");
  await choose(2, /dangerous command \(recursive delete\)/);
  await pane.waitFor(/done-c/);
  assert.equal(existsSync(c), false);

  await ask("fourth");
  await pane.waitFor(/done-d/);
  assert.equal(existsSync(d), false, "the session approval covered the next recursive delete without asking");
  assert.doesNotMatch(pane.screen(), /Allow once/);

  await ask("fifth");
  await choose(3, /dangerous command \(/);
  await pane.waitFor(/done-chmod/);
  const config = readFileSync(join(home, "config.yaml"), "utf8");
  assert.ok(config.includes(`cmd:${chmod}`), `the exact command is saved to command_allowlist:\n${config}`);
  assert.doesNotMatch(config, /recursive delete|rm -r/, "neither once nor the session approval is saved");
});

test("a failed turn shows why in the transcript and the prompt comes back", async () => {
  fake.setScript([
    { fault: { kind: "status", status: 401, message: "this key was revoked in a test" } },
    { text: "answered after the failure" },
  ]);
  const pane = startPane("turn-error");
  await ready(pane);
  pane.type("first");
  pane.keys("Enter");
  await pane.waitFor(/✗ custom\/scripted rejected the credentials/);
  await pane.waitFor(/ · \/help/);
  pane.type("second");
  pane.keys("Enter");
  await pane.waitFor(/answered after the failure/);
});

test("Shift+Tab cycles the permission mode in the status bar; plan mode refuses a write; /build leaves it and carries on", async () => {
  fake.setScript([
    { toolCalls: [{ name: "write_file", arguments: { path: "hermes-tui-plan-never-written.txt", content: "x" } }] },
    (req) => ({ text: `tool said: ${lastToolResults(req)[0]!.slice(0, 40)}` }),
    { text: "building now" },
  ]);
  const pane = startPane("modes");
  await ready(pane);
  await pane.waitFor(/^ scripted · ask mode · \/help/m);
  pane.keys("BTab");
  await pane.waitFor(/^ scripted · auto-edit mode · \/help/m);
  await pane.waitFor(/Auto-edit mode: file edits inside the project run without asking/);
  pane.keys("BTab");
  await pane.waitFor(/^ scripted · YOLO · \/help/m);
  pane.keys("BTab");
  await pane.waitFor(/^ scripted · plan mode · \/help/m);
  pane.type("write the file");
  pane.keys("Enter");
  await pane.waitFor(/tool said: Plan mode is on \(read-only\), so this/);
  assert.equal(existsSync("hermes-tui-plan-never-written.txt"), false);
  pane.type("/build");
  pane.keys("Enter");
  await pane.waitFor(/building now/);
  await pane.waitFor(/^ scripted · [\d.k]+ in \/ \d+ out · ctx \d+% · ask mode · \/help/m);
});

test("display settings from config.yaml: a paste collapses on screen but reaches the model whole; timestamps, footer, skin notice", async () => {
  fake.setScript([{ text: "Got all **twelve** lines." }]);
  // A typed message would need 50 lines to collapse: only the terminal's paste marking collapses this one.
  const config =
    "paste_collapse_threshold_fallback: 50\n" +
    "display:\n  timestamps: true\n  skin: neon\n  runtime_footer:\n    enabled: true\n";
  const pane = startPane("display", [], undefined, config);
  await ready(pane);
  await pane.waitFor(/Unknown skin "neon" \(display\.skin\); using the default/);
  const pasted = Array.from({ length: 12 }, (_, i) => `pasted line ${i + 1}`).join("\n");
  tmux.run("set-buffer", "-b", "hermes-display", pasted);
  tmux.run("paste-buffer", "-p", "-d", "-b", "hermes-display", "-t", pane.name);
  pane.keys("Enter");
  const screen = await pane.waitFor(/Got all twelve lines\.\n +\d\d:\d\d\n +scripted · ctx \d+% · /);
  assert.match(
    screen,
    /› pasted line 1 {2}\d\d:\d\d\n +pasted line 2\n +… 8 more lines …\n +pasted line 11\n +pasted line 12\n/,
  );
  assert.doesNotMatch(screen, /pasted line 7/);
  const sent = conversationOf(fake.requests.at(-1)!).findLast((m) => m.role === "user");
  assert.equal(sent?.content, pasted, "the model got the whole message");
});
