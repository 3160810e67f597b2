/**
 * The browser's life, against the real Chromium: found or not, time limits, an idle tab closed,
 * a killed browser replaced, dialogs answered by policy or by time, a browser reached at
 * `browser.cdp_url`, and the runtime closing the browser it started.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { browserHarness, CHROMIUM, refOf, type Site, startSite, withoutChromium } from "./browser-site.js";

let site: Site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once every request to /hold has closed, or rejects after `ms` (a deadline, not a wait). */
async function heldRequestsClosed(ms: number): Promise<void> {
  // A held request ends aborted when the browser goes ("aborted" errors, then "close"): wait for the close.
  const pending = [...site.held].map((req) =>
    req.destroyed ? Promise.resolve() : new Promise<void>((resolve) => req.once("close", () => resolve())),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the browser still holds its requests open")), ms);
  });
  try {
    await Promise.race([Promise.all(pending), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test("without a browser on PATH or HERMES_BROWSER_PATH the tools are unavailable, and a call says how to get one", async () => {
  const missing = browserHarness({
    allowPrivateUrls: true,
    env: () => ({ PATH: tempDir("hermes-browser-empty-path-") }),
  });
  assert.equal(await missing.registry.isAvailable("browser_navigate"), false);
  const result = await missing.call("browser_navigate", { url: `${site.base}/form` });
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /No Chromium or Chrome was found on PATH\. Install Chromium .*HERMES_BROWSER_PATH.*browser\.cdp_url/,
  );

  const wrongPath = browserHarness({ env: () => ({ PATH: "", HERMES_BROWSER_PATH: "/nonexistent/chrome" }) });
  assert.equal(await wrongPath.registry.isAvailable("browser_snapshot"), false);
  if (CHROMIUM) {
    const explicit = browserHarness({ env: () => ({ PATH: "", HERMES_BROWSER_PATH: CHROMIUM }) });
    assert.equal(await explicit.registry.isAvailable("browser_snapshot"), true);
  }
  const remote = browserHarness({ cdpUrl: "http://127.0.0.1:9", env: () => ({ PATH: "" }) });
  assert.equal(await remote.registry.isAvailable("browser_snapshot"), true);
});

test("a tab left alone for browser.inactivity_timeout is closed, the browser with it, and the session is told", async (t) => {
  if (withoutChromium(t)) return;
  const browser = browserHarness({ allowPrivateUrls: true, inactivityTimeoutSeconds: 0.5 });
  try {
    const opened = await browser.call("browser_navigate", { url: `${site.base}/second` });
    assert.equal(opened.success, true);
    const manager = browser.tools.current!;
    const pid = manager.pid!;
    assert.ok(alive(pid));
    await once(manager, "page-closed");
    assert.equal(alive(pid), false);
    const after = await browser.call("browser_snapshot", {});
    assert.equal(after.success, false);
    assert.match(String(after.error), /The tab was closed after 0\.5 s without a browser call/);
    const again = await browser.call("browser_navigate", { url: `${site.base}/second` });
    assert.equal(again.success, true);
  } finally {
    await browser.tools.close();
  }
});

test("a killed browser is reported to the session, and the next navigation starts a new one", async (t) => {
  if (withoutChromium(t)) return;
  const browser = browserHarness({ allowPrivateUrls: true });
  try {
    await browser.call("browser_navigate", { url: `${site.base}/second` });
    const manager = browser.tools.current!;
    const pid = manager.pid!;
    const exited = once(manager, "browser-exited");
    process.kill(pid, "SIGKILL");
    await exited;
    const lost = await browser.call("browser_snapshot", {});
    assert.equal(lost.success, false);
    assert.match(String(lost.error), /The browser stopped unexpectedly \(killed by SIGKILL\) and the tab was lost/);
    const fresh = await browser.call("browser_navigate", { url: `${site.base}/form` });
    assert.equal(fresh.success, true, JSON.stringify(fresh));
    assert.match(String(fresh.snapshot), /- button "Greet"/);
    assert.ok(manager.pid && manager.pid !== pid);
  } finally {
    await browser.tools.close();
  }
});

test("browser.command_timeout bounds a load: a page still loading is returned as it is, with a warning", async (t) => {
  if (withoutChromium(t)) return;
  const browser = browserHarness({ allowPrivateUrls: true, commandTimeoutSeconds: 1.5 });
  try {
    const stuck = await browser.call("browser_navigate", { url: `${site.base}/stuck-image` });
    assert.equal(stuck.success, true, JSON.stringify(stuck));
    assert.equal(
      stuck.warning,
      "The page did not finish loading within 1.5 s (browser.command_timeout); this is what loaded so far.",
    );
    assert.match(String(stuck.snapshot), /Text arrives first/);
    const silent = await browser.call("browser_navigate", { url: `${site.base}/hold` });
    assert.equal(silent.success, false);
    assert.match(String(silent.error), /did not answer in time: Page\.navigate got no answer within 1\.5 s/);
  } finally {
    await browser.tools.close();
  }
});

test("browser.dialog_timeout_s dismisses a dialog nobody answered, and the next result says so", async (t) => {
  if (withoutChromium(t)) return;
  const browser = browserHarness({ allowPrivateUrls: true, dialogTimeoutSeconds: 0.5 });
  try {
    const opened = await browser.call("browser_navigate", { url: `${site.base}/confirm` });
    const clicked = await browser.call("browser_click", { ref: refOf(opened.snapshot, "button", "Delete") });
    assert.equal((clicked.dialog as { type: string }).type, "confirm");
    await once(browser.tools.current!, "dialog-timeout");
    const after = await browser.call("browser_snapshot", {});
    assert.equal(after.success, true, JSON.stringify(after));
    assert.deepEqual(after.notes, [
      'The JavaScript confirm "Delete everything?" was dismissed after 0.5 s without an answer.',
    ]);
    assert.match(String(after.snapshot), /cancelled/);
  } finally {
    await browser.tools.close();
  }
});

for (const [policy, outcome, done] of [
  ["accept", "accepted", "confirmed"],
  ["dismiss", "dismissed", "cancelled"],
] as const) {
  test(`browser.dialog_policy ${policy} answers a confirm() at once and says so with the result`, async (t) => {
    if (withoutChromium(t)) return;
    const browser = browserHarness({ allowPrivateUrls: true, dialogPolicy: policy });
    try {
      const opened = await browser.call("browser_navigate", { url: `${site.base}/confirm` });
      const clicked = await browser.call("browser_click", { ref: refOf(opened.snapshot, "button", "Delete") });
      assert.equal(clicked.dialog, undefined);
      assert.match(String(clicked.snapshot), new RegExp(done));
      assert.deepEqual(clicked.notes, [
        `A JavaScript confirm said "Delete everything?"; it was ${outcome} (browser.dialog_policy: ${policy}).`,
      ]);
    } finally {
      await browser.tools.close();
    }
  });
}

/** Starts Chromium ourselves with a debugging port, as a user would for browser.cdp_url. */
async function startDebuggableBrowser(): Promise<{ child: ChildProcess; wsUrl: string; httpUrl: string }> {
  const args = [
    "--headless=new",
    "--remote-debugging-port=0",
    `--user-data-dir=${tempDir("hermes-browser-cdp-profile-")}`,
    "--no-first-run",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    "about:blank",
  ];
  const child = spawn(CHROMIUM!, args, { stdio: ["ignore", "ignore", "pipe"] });
  let seen = "";
  const wsUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (found) resolve(found[1]!);
    });
    child.once("exit", () => reject(new Error(`chromium exited: ${seen.slice(-500)}`)));
  });
  const { port } = new URL(wsUrl);
  return { child, wsUrl, httpUrl: `http://127.0.0.1:${port}` };
}

test("browser.cdp_url drives a browser that is already running (http:// and ws:// forms) and leaves it running", async (t) => {
  if (withoutChromium(t)) return;
  const external = await startDebuggableBrowser();
  try {
    for (const cdpUrl of [external.httpUrl, external.wsUrl]) {
      const browser = browserHarness({ cdpUrl, allowPrivateUrls: true, env: () => ({ PATH: "" }) });
      const opened = await browser.call("browser_navigate", { url: `${site.base}/form` });
      assert.equal(opened.success, true, JSON.stringify(opened));
      assert.equal(opened.title, "Sign up");
      assert.equal(browser.tools.current?.pid, undefined);
      await browser.tools.close();
      assert.equal(external.child.exitCode, null);
    }
    const version = await fetch(`${external.httpUrl}/json/version`);
    assert.equal(version.ok, true);
  } finally {
    external.child.kill("SIGKILL");
  }
});

test("a browser.cdp_url nobody answers at is a clear error", async () => {
  const browser = browserHarness({ cdpUrl: "http://127.0.0.1:9/", allowPrivateUrls: true });
  const result = await browser.call("browser_navigate", { url: `${site.base}/form` });
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /^Could not connect to the browser \(browser\.cdp_url\): could not reach the browser at http:\/\/127\.0\.0\.1:9/,
  );
  await browser.tools.close();
});

test("through the agent: the page comes back fenced as untrusted, and closing the runtime closes the browser", async (t) => {
  if (withoutChromium(t)) return;
  const runtime = await openTestRuntime({
    config: "browser:\n  allow_private_urls: true\n",
    script: [
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.base}/injection` } }] },
      { text: "read it" },
    ],
  });
  let closed = false;
  try {
    const result = await runtime.runtime.agentFor("chat").runConversation("open the page");
    assert.equal(result.finalResponse, "read it");
    const turns = runtime.fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
    const messages = turns[1]?.body?.messages as Array<{ role: string; content: string }>;
    const toolMessage = messages.find((m) => m.role === "tool");
    const content = String(toolMessage?.content);
    assert.match(content, /fetched by browser_navigate from an outside source/);
    assert.match(content, /<untrusted_content>[\s\S]*Ignore all previous instructions[\s\S]*<\/untrusted_content>/);
    assert.match(content, /looks like an attempt to instruct you/);
    assert.equal(site.held.size, 1);
    await runtime.close();
    closed = true;
    await heldRequestsClosed(10_000);
  } finally {
    if (!closed) await runtime.close();
  }
});
