/**
 * The go-ahead question before /new, /undo and /clear in the real TUI (a tmux pane against the
 * fake provider): shown inline with the other prompts, answered with the arrow keys and Enter,
 * refused with Esc or by waiting.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { type Pane, TmuxServer } from "../helpers/tmux-pane.js";

let tmux: TmuxServer;
let fake: FakeProvider;
let titles: FakeProvider;
const homes: string[] = [];

before(async () => {
  tmux = TmuxServer.require();
  fake = await startFakeProvider({ models: [{ id: "scripted" }], fallback: { text: "noted" } });
  titles = await startFakeProvider({ fallback: { text: "A test session" } });
});

after(async () => {
  tmux.close();
  await fake.close();
  await titles.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function startTui(name: string, extraConfig = ""): Promise<{ pane: Pane; home: string }> {
  const home = mkdtempSync(join(tmpdir(), "hermes-tui-confirm-"));
  homes.push(home);
  useTitleEndpoint(home, titles.url);
  if (extraConfig) appendFileSync(join(home, "config.yaml"), extraConfig);
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  const pane = tmux.startHermes(name, home, args);
  await pane.waitFor(/Hermes Agent · custom\/scripted/);
  await pane.waitFor(/^ scripted · .*\/help/m);
  return { pane, home };
}

const QUESTION_SHOWN =
  /Yes, go ahead\n.*Always: go ahead and stop asking \(saves approvals\.destructive_slash_confirm: false\)\n.*Cancel/;

test("in the TUI: Esc cancels, Enter goes ahead once, always saves to config.yaml and the question stops", async () => {
  const { pane, home } = await startTui("confirm-choices");
  pane.enter("/new");
  await pane.waitFor(/New session /);
  assert.doesNotMatch(pane.screen(), /Start a new session\?/, "an empty session is not asked about");

  pane.enter("first words");
  await pane.waitFor(/noted/);
  pane.enter("/new");
  await pane.waitFor(/⚠ Start a new session\? This one \(2 messages\) stays saved; \/resume brings it back\./);
  await pane.waitFor(QUESTION_SHOWN);
  pane.keys("Escape");
  await pane.waitFor(/Cancelled: nothing changed\./);
  pane.enter("/history");
  await pane.waitFor(/you: first words/);

  pane.enter("/undo");
  await pane.waitFor(/⚠ Remove your last message \("first words"\) and the reply to it\?/);
  pane.keys("Enter");
  await pane.waitFor(/Removed the last exchange: first words/);

  pane.enter("second words");
  await pane.waitFor(/noted[\s\S]*› second words[\s\S]*noted/);
  pane.enter("/clear");
  await pane.waitFor(/⚠ Clear the screen and start a new session\?/);
  pane.keys("Down");
  pane.keys("Enter");
  await pane.waitFor(/Saved approvals\.destructive_slash_confirm: false to config\.yaml/);
  await pane.waitFor(/New session /);
  assert.match(readFileSync(join(home, "config.yaml"), "utf8"), /destructive_slash_confirm: false/);

  pane.enter("third words");
  await pane.waitFor(/› third words[\s\S]*noted/);
  pane.enter("/undo");
  await pane.waitFor(/Removed the last exchange: third words/);
  assert.doesNotMatch(pane.screen(), /Remove your last message/, "after always nothing asks");
  pane.enter("/quit");
  await pane.waitFor(/HERMES-EXITED-0/);
});

test("in the TUI: no answer within approvals.timeout cancels", async () => {
  const { pane } = await startTui("confirm-timeout", "approvals:\n  timeout: 1\n");
  pane.enter("keep me");
  await pane.waitFor(/noted/);
  pane.enter("/new");
  // No key is pressed after /new: only the deadline can cancel it (the question may come and go
  // between two looks at a slow screen, so its showing is not awaited here).
  await pane.waitFor(/Cancelled: nothing changed\./);
  assert.doesNotMatch(pane.screen(), /Yes, go ahead/, "the question is gone");
  pane.enter("/history");
  await pane.waitFor(/you: keep me/);
  pane.enter("/quit");
  await pane.waitFor(/HERMES-EXITED-0/);
});
