import assert from "node:assert/strict";
import { test } from "node:test";
import type { TUI } from "@mariozechner/pi-tui";
import type { DisplaySettings } from "../../src/cli/slash/context.js";
import { Transcript } from "../../src/cli/tui/transcript.js";

/** The transcript renders into its container; a TUI that only counts render requests is enough. */
function transcript(streaming: boolean): { view: Transcript; screen: () => string } {
  const tui = { requestRender() {} } as unknown as TUI;
  const display: DisplaySettings = { showReasoning: false, toolProgress: "all", streaming, showCost: false };
  const view = new Transcript(tui, display, () => undefined);
  return { view, screen: () => view.container.render(80).join("\n") };
}

test("streamed replies appear as they arrive", () => {
  const { view, screen } = transcript(true);
  view.userMessage("hi");
  view.event({ type: "text_delta", text: "Hello " });
  assert.match(screen(), /Hello/);
  view.event({ type: "text_delta", text: "there" });
  view.event({ type: "thinking", state: "stop" });
  assert.match(screen(), /Hello there/);
});

test("with display.streaming false a reply appears whole when its model call ends", () => {
  const { view, screen } = transcript(false);
  view.userMessage("hi");
  view.event({ type: "text_delta", text: "Checking " });
  view.event({ type: "text_delta", text: "first." });
  assert.doesNotMatch(screen(), /Checking/);
  view.event({ type: "thinking", state: "stop" });
  assert.match(screen(), /Checking first\./);
  view.event({ type: "text_delta", text: "Done." });
  view.endTurn({ text: "hi" });
  assert.match(screen(), /Done\./);
});

test("display.compact leaves out the blank line between exchanges", () => {
  const tui = { requestRender() {} } as unknown as TUI;
  const base: DisplaySettings = { showReasoning: false, toolProgress: "all", streaming: true, showCost: false };
  const lines = (compact: boolean) => {
    const view = new Transcript(tui, { ...base, compact }, () => undefined);
    view.userMessage("one");
    view.userMessage("two");
    return view.container.render(80).filter((line) => line.trim() === "").length;
  };
  assert.equal(lines(true), 0);
  assert.equal(lines(false), 2);
});
