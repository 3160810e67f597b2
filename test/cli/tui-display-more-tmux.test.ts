/**
 * The real TUI in a tmux pane against the fake provider, for the display settings that only show
 * on screen: an answered approval stays as a line (display.persist_prompts), and while the model
 * is silent the busy indicator's faces (display.tui_status_indicator) and the turn's running time
 * in the status bar (display.cli_refresh_interval) keep moving; the next start comes back to the
 * session (display.tui_auto_resume_recent).
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { TmuxServer } from "../helpers/tmux-pane.js";

let tmux: TmuxServer;
let fake: FakeProvider;
let titles: FakeProvider;
const dirs: string[] = [];

before(async () => {
  tmux = TmuxServer.require();
  fake = await startFakeProvider({ models: [{ id: "scripted" }] });
  titles = await startFakeProvider({ fallback: { text: "A test session" } });
});

after(async () => {
  tmux.close();
  await fake.close();
  await titles.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const FACES = /\((?:・ω・|°ロ°|￣ー￣|・_・|＾▽＾|¬_¬|・へ・)\) +thinking…/;

test("an answered approval stays as a line; a silent model shows moving faces and the turn's running time; the next start resumes", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-tui-more-"));
  const victim = join(mkdtempSync(join(tmpdir(), "hermes-tui-more-victim-")), "keep");
  mkdirSync(join(victim, "inner"), { recursive: true });
  dirs.push(home, join(victim, ".."));
  useTitleEndpoint(home, titles.url);
  appendFileSync(join(home, "config.yaml"), "display:\n  cli_refresh_interval: 0.2\n");
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${victim}` } }] },
    { text: "Understood, leaving it." },
    { fault: { kind: "stall", afterChunks: 0 } },
  ]);
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  const pane = tmux.startHermes("display-more", home, args);
  await pane.waitFor(/^ scripted · .*\/help/m);

  pane.enter("clean up");
  await pane.waitFor(/dangerous command \(recursive delete\)/);
  await pane.waitFor(/Deny[\s\S]*Allow once/);
  pane.keys("Enter");
  const screen = await pane.waitFor(/Understood, leaving it\./);
  assert.match(screen, /⚠ rm -r \S+keep \(recursive delete\): denied/);
  assert.doesNotMatch(screen, /Allow once/, "the question itself is gone");
  assert.equal(existsSync(victim), true);

  pane.enter("take your time");
  await pane.waitFor(FACES);
  await pane.waitFor(/ · turn [1-9]\d*s · working \(Ctrl\+C to stop\)/);
  pane.keys("C-c");
  await pane.waitFor(/\[interrupted\]/);
  await pane.waitFor(/^ scripted · .*\/help/m);
  assert.doesNotMatch(pane.screen(), / · turn \d+s · /, "the running time goes with the turn");
  pane.enter("/quit");
  const exited = await pane.waitFor(/HERMES-EXITED-0/);
  const sessionId = /Session (\S+) saved\./.exec(exited)?.[1];
  assert.ok(sessionId, exited);

  // display.tui_auto_resume_recent: the next start, without --resume or --continue, comes back to it.
  appendFileSync(join(home, "config.yaml"), "  tui_auto_resume_recent: true\n");
  const again = tmux.startHermes("display-more-again", home, args);
  await again.waitFor(new RegExp(`session ${sessionId}`));
  await again.waitFor(/Resumed a session with \d+ messages[\s\S]*you: clean up/);
  again.enter("/quit");
  await again.waitFor(/HERMES-EXITED-0/);
});
