/**
 * The terminal UI's display.* settings, through the transcript (rendered into its container with
 * a TUI that only counts render requests) and the pure rules behind it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { TUI } from "@mariozechner/pi-tui";
import type { DisplaySettings } from "../../src/cli/slash/context.js";
import {
  collapseMessage,
  DEFAULT_DISPLAY_OPTIONS,
  type DisplayOptions,
  displayOptionsFrom,
  footerLine,
} from "../../src/cli/tui/display-options.js";
import { formatInlineDiff } from "../../src/cli/tui/inline-diff.js";
import { stripMarkdown } from "../../src/cli/tui/markdown-strip.js";
import { applySkin, currentSkin, style } from "../../src/cli/tui/theme.js";
import { Transcript } from "../../src/cli/tui/transcript.js";
import { configSchema } from "../../src/state/config-schema.js";

const savedNoColor = process.env.NO_COLOR;
let dir: string;
before(() => {
  process.env.NO_COLOR = "1";
  dir = mkdtempSync(join(tmpdir(), "hermes-display-"));
});
after(() => {
  if (savedNoColor === undefined) delete process.env.NO_COLOR;
  else process.env.NO_COLOR = savedNoColor;
  rmSync(dir, { recursive: true, force: true });
});

function transcript(options: Partial<DisplayOptions> = {}, settings: Partial<DisplaySettings> = {}) {
  const tui = { requestRender() {} } as unknown as TUI;
  const display: DisplaySettings = {
    showReasoning: false,
    toolProgress: "all",
    streaming: true,
    showCost: false,
    ...settings,
    options: { ...DEFAULT_DISPLAY_OPTIONS, ...options },
  };
  const view = new Transcript(tui, display, () => "🔧", { now: () => new Date(2026, 0, 2, 9, 7), cwd: () => dir });
  return {
    view,
    screen: () =>
      view.container
        .render(120)
        .map((line) => line.trimEnd())
        .join("\n"),
  };
}

function runTool(view: Transcript, name: string, args: unknown, result = '{"success":true}', between?: () => void) {
  view.event({ type: "tool_start", callId: `c-${name}`, name, args, preview: "" });
  between?.();
  view.event({ type: "tool_end", callId: `c-${name}`, name, result, durationMs: 300, failed: false });
}

test("config: every new display key has the original's default and reaches the options", () => {
  const config = configSchema.parse({});
  assert.deepEqual(displayOptionsFrom(config), DEFAULT_DISPLAY_OPTIONS);
  const set = configSchema.parse({
    paste_collapse_threshold: 3,
    paste_collapse_threshold_fallback: 9,
    display: { final_response_markdown: "raw", memory_notifications: "off", runtime_footer: { enabled: true } },
  });
  const options = displayOptionsFrom(set);
  assert.deepEqual(options.collapse, { pastedLines: 3, typedLines: 9, chars: 2000 });
  assert.equal(options.finalMarkdown, "raw");
  assert.equal(options.memoryNotifications, false);
  assert.deepEqual(options.footer, { enabled: true, fields: ["model", "context_pct", "cwd"] });
  assert.throws(() => configSchema.parse({ display: { final_response_markdown: "html" } }), /strip/);
});

test("display.timestamps puts HH:MM next to a sent message and under the final answer", () => {
  const on = transcript({ timestamps: true });
  on.view.userMessage("hello");
  on.view.event({ type: "text_delta", text: "Hi there." });
  on.view.endTurn({ text: "hello" });
  assert.match(on.screen(), /› hello {2}09:07/);
  assert.match(on.screen(), /Hi there\.\n +09:07/);
  const off = transcript();
  off.view.userMessage("hello");
  off.view.event({ type: "text_delta", text: "Hi there." });
  off.view.endTurn({ text: "hello" });
  assert.doesNotMatch(off.screen(), /09:07/);
});

test("display.tool_preview_length sets how much of a tool's arguments the progress line shows", () => {
  const args = { command: `echo ${"x".repeat(200)}` };
  const short = transcript({ toolPreviewLength: 20 });
  runTool(short.view, "terminal", args);
  assert.match(short.screen(), /Running echo x{14}… \(0\.3s\)/);
  const usual = transcript();
  runTool(usual.view, "terminal", args);
  assert.match(usual.screen(), /Running echo x{74}… \(0\.3s\)/, "0 keeps the usual 80 characters");
});

test("a long message is shown collapsed (first and last lines) by line count or size; short ones whole", () => {
  const twelve = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
  const pasted = transcript();
  pasted.view.userMessage(twelve, true);
  const screen = pasted.screen();
  assert.match(screen, /› line 1\n +line 2\n +… 8 more lines …\n +line 11\n +line 12/);
  assert.doesNotMatch(screen, /line 5/);
  const options = { ...DEFAULT_DISPLAY_OPTIONS, collapse: { pastedLines: 5, typedLines: 20, chars: 2000 } };
  assert.equal(collapseMessage(twelve, options, false), twelve, "typed: paste_collapse_threshold_fallback applies");
  assert.match(collapseMessage(twelve, options, true), /… 8 more lines …/);
  const wider = { ...options, userPreview: { firstLines: 3, lastLines: 1 } };
  assert.equal(collapseMessage(twelve, wider, true), "line 1\nline 2\nline 3\n… 8 more lines …\nline 12");
  const long = `start ${"y".repeat(5000)} end`;
  const collapsed = collapseMessage(long, DEFAULT_DISPLAY_OPTIONS, false);
  assert.match(collapsed, /^start y+ … \d+ more characters … y+ end$/);
  assert.ok(collapsed.length < 1200);
  assert.equal(collapseMessage("two\nlines", DEFAULT_DISPLAY_OPTIONS, true), "two\nlines");
  const never = { ...DEFAULT_DISPLAY_OPTIONS, collapse: { pastedLines: 0, typedLines: 0, chars: 0 } };
  assert.equal(collapseMessage(long, never, true), long, "0 turns each rule off");
});

test("display.reasoning_full shows the whole reasoning; without it only the latest lines", () => {
  const reasoning = Array.from({ length: 20 }, (_, i) => `step ${i + 1}`).join("\n");
  const short = transcript({}, { showReasoning: true });
  short.view.event({ type: "reasoning_delta", text: reasoning });
  assert.match(short.screen(), /\(14 earlier lines\)\n +step 15/);
  assert.match(short.screen(), /step 20/);
  assert.doesNotMatch(short.screen(), /step 1\n/);
  const full = transcript({ reasoningFull: true }, { showReasoning: true });
  full.view.event({ type: "reasoning_delta", text: reasoning });
  assert.match(full.screen(), /💭 step 1\n +step 2\n/);
  assert.doesNotMatch(full.screen(), /earlier lines/);
});

test("display.final_response_markdown: strip (marks removed), raw (as written), render (markdown)", () => {
  const reply = "## Result\n\nThe file is **ready** in `out/`.\n\n- first\n- second";
  const shown = (mode: DisplayOptions["finalMarkdown"]) => {
    const { view, screen } = transcript({ finalMarkdown: mode });
    view.userMessage("go");
    view.event({ type: "text_delta", text: reply });
    view.endTurn({ text: "go" });
    return screen();
  };
  const strip = shown("strip");
  assert.match(strip, /^ +Result$/m);
  assert.match(strip, /The file is ready in out\/\./);
  assert.match(strip, /- first\n +- second/);
  const raw = shown("raw");
  assert.match(raw, /## Result/);
  assert.match(raw, /\*\*ready\*\* in `out\/`/);
  const render = shown("render");
  assert.doesNotMatch(render, /##|\*\*|`/);
  assert.match(render, /ready/);
});

test("stripMarkdown keeps words, code and links, and leaves snake_case and arithmetic alone", () => {
  assert.equal(
    stripMarkdown("# Title\nSee [the docs](https://example.test/d) and ![logo](x.png).\n> quoted\n---"),
    "Title\nSee the docs (https://example.test/d) and logo.\n│ quoted\n────────────────────",
  );
  assert.equal(
    stripMarkdown("```ts\nconst a_b = 2*3*4;\n```\nuse my_var_name, *em* and _it_"),
    "const a_b = 2*3*4;\nuse my_var_name, em and it",
  );
  assert.equal(stripMarkdown("| a | b |\n|---|---|\n| 1 | 2 |"), "| a | b |\n| 1 | 2 |");
  assert.equal(stripMarkdown("* [x] done\n+ [ ] todo"), "- ☑ done\n- ☐ todo");
});

test("display.interim_assistant_messages false shows only the final answer, not text between tool calls", () => {
  const turn = (interimMessages: boolean) => {
    const { view, screen } = transcript({ interimMessages });
    view.userMessage("check it");
    view.event({ type: "thinking", state: "start" });
    view.event({ type: "text_delta", text: "Let me look first." });
    view.event({ type: "thinking", state: "stop" });
    runTool(view, "terminal", { command: "ls" });
    view.event({ type: "thinking", state: "start" });
    view.event({ type: "text_delta", text: "All good." });
    view.event({ type: "thinking", state: "stop" });
    view.endTurn({ text: "check it" });
    return screen();
  };
  assert.match(turn(true), /Let me look first\.[\s\S]*All good\./);
  const finalOnly = turn(false);
  assert.doesNotMatch(finalOnly, /Let me look first/);
  assert.match(finalOnly, /Running ls \(0\.3s\)\n +All good\./);
});

test("display.memory_notifications: a line when the agent saves to memory, none when off or refused", () => {
  const on = transcript();
  runTool(on.view, "memory", { action: "add", target: "user", content: "Prefers  tea\nover coffee" });
  assert.match(on.screen(), /🧠 Saved to memory \(USER\.md\): Prefers tea over coffee/);
  const refused = transcript();
  runTool(
    refused.view,
    "memory",
    { action: "add", target: "memory", content: "x" },
    '{"success":false,"error":"full"}',
  );
  assert.doesNotMatch(refused.screen(), /Saved to memory/);
  const off = transcript({ memoryNotifications: false });
  runTool(off.view, "memory", { action: "remove", target: "memory", old_text: "old fact" });
  assert.doesNotMatch(off.screen(), /memory \(/);
  const removed = transcript();
  runTool(removed.view, "memory", { action: "remove", target: "memory", old_text: "old fact" });
  assert.match(removed.screen(), /Removed from memory \(MEMORY\.md\): old fact/);
});

test("display.runtime_footer fields: model, context, directory (home as ~), in the order given", () => {
  const facts = { model: "scripted", contextPercent: 12, cwd: join(process.env.HOME ?? "/nohome", "proj") };
  assert.equal(footerLine(["model", "context_pct", "cwd"], facts), "scripted · ctx 12% · ~/proj");
  assert.equal(
    footerLine(["cwd", "bogus", "model", "duration", "tokens"], {
      ...facts,
      durationMs: 2500,
      tokensIn: 10,
      tokensOut: 3,
    }),
    "~/proj · scripted · 2.5s · 10 in / 3 out",
  );
  assert.equal(footerLine(["context_pct"], { model: "m", cwd: "/" }), "", "a missing fact is left out");
});

test("display.friendly_tool_labels: words for built-in tools; false (or an unknown tool) shows the name", () => {
  const friendly = transcript();
  runTool(friendly.view, "read_file", { path: "src/app.ts" });
  runTool(friendly.view, "my_plugin_tool", { query: "q" });
  assert.match(friendly.screen(), /🔧 Reading src\/app\.ts \(0\.3s\)/);
  assert.match(friendly.screen(), /🔧 my_plugin_tool: q \(0\.3s\)/);
  const raw = transcript({ friendlyToolLabels: false });
  runTool(raw.view, "read_file", { path: "src/app.ts" });
  assert.match(raw.screen(), /🔧 read_file: src\/app\.ts \(0\.3s\)/);
});

test("display.inline_diffs: patch and write_file leave a short diff of the change; false leaves none", () => {
  const patchResult = JSON.stringify({
    success: true,
    diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old line\n+new line\n",
  });
  const patched = transcript();
  runTool(patched.view, "patch", { path: "f.txt" }, patchResult);
  assert.match(patched.screen(), /Editing f\.txt \(0\.3s\)\n +--- a\/f\.txt[\s\S]*-old line\n +\+new line/);

  const file = join(dir, "notes.txt");
  writeFileSync(file, "alpha\nbeta\n");
  const written = transcript();
  runTool(written.view, "write_file", { path: "notes.txt", content: "alpha\ngamma\n" }, '{"success":true}', () =>
    writeFileSync(file, "alpha\ngamma\n"),
  );
  assert.match(written.screen(), /-beta\n +\+gamma/);

  writeFileSync(file, "one\n");
  const off = transcript({ inlineDiffs: false });
  runTool(off.view, "write_file", { path: "notes.txt", content: "two\n" }, '{"success":true}', () =>
    writeFileSync(file, "two\n"),
  );
  runTool(off.view, "patch", { path: "f.txt" }, patchResult);
  assert.doesNotMatch(off.screen(), /\+two|\+new line/);

  const plain = { added: (t: string) => t, removed: (t: string) => t, hunk: (t: string) => t, muted: (t: string) => t };
  const long = Array.from({ length: 30 }, (_, i) => `+line ${i}`).join("\n");
  const shown = formatInlineDiff(long, plain, 16).split("\n");
  assert.equal(shown.length, 17);
  assert.equal(shown.at(-1), "… 14 more diff lines");
});

test("display.skin picks the colours; an unknown name falls back to the default with a notice", () => {
  delete process.env.NO_COLOR;
  try {
    assert.equal(applySkin("mono"), undefined);
    assert.equal(style.accent("x"), "\x1b[1mx\x1b[22m");
    assert.equal(applySkin("Daylight"), undefined);
    assert.equal(currentSkin(), "daylight");
    assert.equal(style.muted("x"), "\x1b[38;5;240mx\x1b[39m");
    const notice = applySkin("neon");
    assert.match(
      notice ?? "",
      /Unknown skin "neon" \(display\.skin\); using the default\. Skins: default, mono, slate, daylight/,
    );
    assert.equal(currentSkin(), "default");
    assert.equal(style.accent("x"), "\x1b[36mx\x1b[39m");
  } finally {
    applySkin("default");
    process.env.NO_COLOR = "1";
  }
  assert.equal(style.accent("x"), "x", "NO_COLOR still wins over any skin");
});
