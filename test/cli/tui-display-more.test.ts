/**
 * More of the terminal UI's display.* settings: auto-resume, reasoning style, the busy indicator,
 * the status bar refresh, answered prompts kept in the transcript, the explanation under a turn
 * without an answer, and the warning about edits that did not land. Through the transcript (with a
 * TUI that only counts render requests), the controller against the fake provider, and the pure
 * rules behind them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TUI, visibleWidth } from "@mariozechner/pi-tui";
import type { DisplaySettings } from "../../src/cli/slash/context.js";
import { busyIndicator } from "../../src/cli/tui/busy-indicator.js";
import { ChatController, type TurnOutcome } from "../../src/cli/tui/controller.js";
import { DEFAULT_DISPLAY_OPTIONS, type DisplayOptions, displayOptionsFrom } from "../../src/cli/tui/display-options.js";
import { mutationTargets } from "../../src/cli/tui/file-mutation-verifier.js";
import { statusText } from "../../src/cli/tui/format.js";
import { approvalSummary, clarifySummary } from "../../src/cli/tui/prompt-summary.js";
import { StatusRefresh } from "../../src/cli/tui/status-refresh.js";
import { Transcript } from "../../src/cli/tui/transcript.js";
import { turnExplanation } from "../../src/cli/tui/turn-explainer.js";
import { configSchema } from "../../src/state/config-schema.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { RecordingView } from "./recording-view.js";

const savedNoColor = process.env.NO_COLOR;
const savedHome = process.env.HERMES_HOME;
let fake: FakeProvider;
const dirs: string[] = [];
before(async () => {
  process.env.NO_COLOR = "1";
  fake = await startFakeProvider({});
});
after(async () => {
  await fake.close();
  if (savedNoColor === undefined) delete process.env.NO_COLOR;
  else process.env.NO_COLOR = savedNoColor;
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function transcript(options: Partial<DisplayOptions> = {}, settings: Partial<DisplaySettings> = {}) {
  const tui = { requestRender() {} } as unknown as TUI;
  const display: DisplaySettings = {
    showReasoning: true,
    toolProgress: "all",
    streaming: true,
    showCost: false,
    ...settings,
    options: { ...DEFAULT_DISPLAY_OPTIONS, ...options },
  };
  const cwd = tempDir("hermes-display-more-");
  const view = new Transcript(tui, display, () => "🔧", { cwd: () => cwd });
  const render = (component: { render(width: number): string[] }) =>
    component
      .render(120)
      .map((line) => line.trimEnd())
      .join("\n");
  return { view, screen: () => render(view.container), activity: () => render(view.activity) };
}

/** A finished turn as the controller reports it, with the fields these rules read. */
function outcome(result: Partial<NonNullable<TurnOutcome["result"]>>): TurnOutcome {
  const base = { finalResponse: "done", interrupted: false, completed: true, stopReason: "completed" as const };
  return { text: "go", result: { ...base, ...result } as NonNullable<TurnOutcome["result"]> };
}

test("config: the new display keys default as in the original, reach the options, and bad values are refused", () => {
  const options = displayOptionsFrom(configSchema.parse({}));
  assert.equal(options.reasoningStyle, "code");
  assert.equal(options.indicator, "kaomoji");
  assert.equal(options.refreshSeconds, 1);
  assert.equal(options.persistPrompts, true);
  assert.equal(options.turnExplainer, true);
  assert.equal(options.fileMutationVerifier, true);
  assert.equal(configSchema.parse({}).display.tui_auto_resume_recent, false);
  const set = displayOptionsFrom(
    configSchema.parse({
      display: {
        reasoning_style: "blockquote",
        tui_status_indicator: "ascii",
        cli_refresh_interval: 0,
        persist_prompts: false,
        turn_completion_explainer: false,
        file_mutation_verifier: false,
      },
    }),
  );
  assert.deepEqual(
    [set.reasoningStyle, set.indicator, set.refreshSeconds, set.persistPrompts, set.turnExplainer],
    ["blockquote", "ascii", 0, false, false],
  );
  assert.equal(set.fileMutationVerifier, false);
  assert.throws(() => configSchema.parse({ display: { tui_status_indicator: "spinner" } }), /kaomoji/);
  assert.throws(() => configSchema.parse({ display: { reasoning_style: "box" } }), /blockquote/);
  assert.throws(() => configSchema.parse({ display: { cli_refresh_interval: -1 } }), /between 0 and 3600/);
});

test("display.reasoning_style: a 💭 block (code), quoted lines (blockquote), or bare dim lines (subtext)", () => {
  const shown = (reasoningStyle: DisplayOptions["reasoningStyle"]) => {
    const { view, screen } = transcript({ reasoningStyle });
    view.userMessage("why?");
    view.event({ type: "reasoning_delta", text: "first thought\nsecond thought" });
    return screen();
  };
  assert.match(shown("code"), /💭 first thought\n +second thought/);
  const quoted = shown("blockquote");
  assert.match(quoted, /> first thought\n +> second thought/);
  assert.doesNotMatch(quoted, /💭/);
  const subtext = shown("subtext");
  assert.match(subtext, / first thought\n +second thought/);
  assert.doesNotMatch(subtext, /💭|> first/);
});

test("display.tui_status_indicator: the spinner's frames follow the style, all of one width", () => {
  for (const name of ["kaomoji", "emoji", "unicode", "ascii"] as const) {
    const { frames, intervalMs } = busyIndicator(name);
    assert.ok(frames.length > 1 && intervalMs > 0, name);
    assert.equal(new Set(frames.map((frame) => visibleWidth(frame))).size, 1, `${name} frames share a width`);
  }
  assert.equal(busyIndicator("kaomoji").intervalMs, 2500, "faces change every 2.5 s, as in the original");
  const ascii = transcript({ indicator: "ascii" });
  ascii.view.event({ type: "thinking", state: "start" });
  assert.match(ascii.activity(), /^ +\| thinking…$/m);
  ascii.view.endTurn({ text: "x" });
  const faces = transcript({ indicator: "kaomoji" });
  faces.view.event({ type: "thinking", state: "start" });
  assert.match(faces.activity(), /^ +\(・ω・\) +thinking…$/m);
  faces.view.endTurn({ text: "x" });
  assert.equal(faces.activity(), "", "the indicator goes when the turn ends");
});

test("display.cli_refresh_interval: the status bar counts the turn's running time, redrawn at that pace; 0 turns it off", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  let clock = 10_000;
  let redraws = 0;
  const refresh = new StatusRefresh(
    0.5,
    () => redraws++,
    () => clock,
  );
  refresh.update(true);
  clock += 12_400;
  t.mock.timers.tick(1500);
  assert.equal(redraws, 3);
  assert.equal(refresh.busyFor(), 12_400);
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const base = {
    model: "m",
    usage: { ...usage, reasoningTokens: 0, apiCalls: 0, toolCalls: 0, turns: 0, cost: 0 },
    busy: true,
    queued: 0,
    yolo: false,
  };
  const bar = statusText({ ...base, busyForMs: refresh.busyFor() });
  assert.equal(bar, "m · turn 12s · working (Ctrl+C to stop)");
  assert.match(statusText({ ...base, busyForMs: 185_000 }), / · turn 3m 05s · /);
  refresh.update(false);
  t.mock.timers.tick(5000);
  assert.equal(redraws, 3, "no redraws once the turn is over");
  assert.equal(refresh.busyFor(), undefined);

  const off = new StatusRefresh(
    0,
    () => redraws++,
    () => clock,
  );
  off.update(true);
  t.mock.timers.tick(5000);
  assert.equal(redraws, 3, "0 never redraws");
  assert.equal(off.busyFor(), undefined, "and shows no running time that would go stale");
  off.stop();
});

test("display.persist_prompts: an answered approval or clarify question leaves one line saying what was decided", () => {
  const request = { command: "rm -r build\n&& echo \u001b[31mx", reason: "recursive delete" };
  assert.equal(approvalSummary(request, "deny"), "⚠ rm -r build && echo [31mx (recursive delete): denied");
  assert.match(approvalSummary(request, "once"), /: allowed this once$/);
  assert.match(approvalSummary(request, "session"), /: allowed for the rest of this session$/);
  assert.match(approvalSummary(request, "always"), /: always allowed \(saved to command_allowlist\)$/);
  assert.equal(clarifySummary("Which file?", "src/app.ts"), "? Which file? → src/app.ts");
  assert.equal(clarifySummary("Which file?", "  "), "? Which file? → (no answer)");
  assert.ok(approvalSummary({ command: "x".repeat(500), reason: "r" }, "deny").length < 120, "a long command is cut");
});

test("display.turn_completion_explainer: a line under a turn that ran out of iterations or got an empty reply", () => {
  const explainedBy = (turn: TurnOutcome, turnExplainer = true) => {
    const { view, screen } = transcript({ turnExplainer });
    view.userMessage("go");
    view.endTurn(turn);
    return screen();
  };
  const budget = outcome({ stopReason: "budget", completed: false, finalResponse: "Got halfway." });
  assert.match(explainedBy(budget), /⚠ No final answer: the turn used up its iterations \(agent\.max_turns\)/);
  assert.match(explainedBy(budget), /Send `continue` to go on/);
  assert.match(explainedBy(outcome({ finalResponse: "" })), /⚠ No reply: the model answered with no text/);
  assert.doesNotMatch(explainedBy(outcome({})), /⚠/, "a normal answer needs no explanation");
  assert.doesNotMatch(explainedBy(budget, false), /⚠/, "off: nothing added");
  assert.equal(turnExplanation(outcome({ interrupted: true, stopReason: "interrupted", completed: false })), undefined);
  assert.equal(turnExplanation({ text: "go", error: "boom" }), undefined, "an error already says what happened");
});

test("display.file_mutation_verifier: files a failed write_file/patch left unchanged are named after the turn", () => {
  const run = (fileMutationVerifier: boolean) => {
    const { view, screen } = transcript({ fileMutationVerifier, inlineDiffs: false });
    view.userMessage("edit them");
    const call = (id: string, name: string, args: unknown, failed: boolean, result: string) => {
      view.event({ type: "tool_start", callId: id, name, args, preview: "" });
      view.event({ type: "tool_end", callId: id, name, result, durationMs: 5, failed });
    };
    call(
      "1",
      "patch",
      { path: "src/a.ts", old_string: "x", new_string: "y" },
      true,
      '{"error":"old_string not found"}',
    );
    call("2", "write_file", { path: "b.txt", content: "" }, true, '{"error":"permission denied"}');
    call("3", "write_file", { path: "./b.txt", content: "" }, false, '{"path":"b.txt","bytes":0}');
    call("4", "read_file", { path: "c.txt" }, true, '{"error":"no such file"}');
    view.event({ type: "text_delta", text: "All edits applied." });
    view.endTurn({ text: "edit them" });
    return screen();
  };
  const shown = run(true);
  assert.match(shown, /⚠ 1 file was NOT changed this turn, whatever the reply says/);
  assert.match(shown, /• src\/a\.ts \(patch\): old_string not found/);
  assert.doesNotMatch(shown, /• (\.\/)?b\.txt|• c\.txt/, "a later successful write clears a file; reads do not count");
  assert.doesNotMatch(run(false), /NOT changed/);
  const v4a = "*** Begin Patch\n*** Update File: one.ts\n@@\n-a\n+b\n*** Add File: two.ts\n+x\n*** End Patch";
  assert.deepEqual(mutationTargets("patch", { mode: "patch", patch: v4a }), ["one.ts", "two.ts"]);
  assert.deepEqual(mutationTargets("patch", { patch: v4a }), ["one.ts", "two.ts"], "patch text without a path is V4A");
  assert.deepEqual(mutationTargets("terminal", { command: "echo > x" }), []);
});

test("a turn that used up agent.max_turns, or got only empty replies, is explained", async () => {
  const home = tempDir("hermes-explain-");
  writeFileSync(join(home, "config.yaml"), "agent:\n  max_turns: 2\n");
  process.env.HERMES_HOME = home;
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const view = new RecordingView();
  const chat = await ChatController.create(flags, view, { localServers: false });
  try {
    const step = { toolCalls: [{ name: "todo", arguments: { todos: [] } }] };
    fake.setScript([step, step, { text: "Got halfway." }]);
    await chat.submit("a long task");
    assert.match(turnExplanation(view.outcomes.at(-1)!) ?? "", /used up its iterations/);
    fake.setScript([{ text: "" }, { text: "" }]);
    await chat.submit("say something");
    assert.match(turnExplanation(view.outcomes.at(-1)!) ?? "", /^⚠ No reply/);
  } finally {
    await chat.close();
  }
});

test("display.tui_auto_resume_recent: the terminal UI starts in the latest session; /new starts afresh; off starts new", async () => {
  const home = tempDir("hermes-auto-resume-");
  process.env.HERMES_HOME = home;
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  fake.setScript([{ text: "first answer" }]);
  const first = await ChatController.create(flags, new RecordingView(), { localServers: false });
  const sessionId = first.runtime.agent.sessionId;
  try {
    await first.submit("remember this");
  } finally {
    await first.close();
  }
  const start = async () =>
    ChatController.create(flags, new RecordingView(), { localServers: false, autoResumeRecent: true });

  const off = await start();
  try {
    assert.notEqual(off.runtime.agent.sessionId, sessionId, "off by default: a fresh session");
  } finally {
    await off.close();
  }

  writeFileSync(join(home, "config.yaml"), "display:\n  tui_auto_resume_recent: true\n");
  const resumed = await start();
  try {
    assert.equal(resumed.runtime.agent.sessionId, sessionId);
    assert.equal((await resumed.messages()).length, 2, "the conversation is back");
    assert.equal(resumed.exitNote(), `Session ${sessionId} saved. Continue it with: hermes --resume ${sessionId}`);
    await resumed.newSession();
    assert.notEqual(resumed.runtime.agent.sessionId, sessionId, "/new does not resume again");
  } finally {
    await resumed.close();
  }

  const lineMode = await ChatController.create(flags, new RecordingView(), { localServers: false });
  try {
    assert.notEqual(lineMode.runtime.agent.sessionId, sessionId, "only the terminal UI's start resumes");
  } finally {
    await lineMode.close();
  }
});
