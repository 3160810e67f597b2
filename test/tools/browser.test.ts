/**
 * The browser tools against the real Chromium (found as the tools find it) and a local site: one browser
 * shared by the file's tests, each test in its own session (its own tab and cookies).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { createAuxiliaryClient } from "../../src/agent/auxiliary.js";
import { createTransport } from "../../src/llm/providers.js";
import { visionAnalyzer } from "../../src/runtime/vision.js";
import { publishTools, TOOL_SEARCH } from "../../src/tools/tool-search.js";
import { BROWSER_TOOLS } from "../../src/tools/toolsets.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { type BrowserHarness, browserHarness, refOf, type Site, startSite, withoutChromium } from "./browser-site.js";

let site: Site;
let fake: FakeProvider;
let browser: BrowserHarness;
const home = tempDir("hermes-browser-home-");

before(async () => {
  site = await startSite();
  fake = await startFakeProvider();
  const mainRoute = {
    provider: "custom",
    model: "main-model",
    transport: await createTransport({ provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "main-key" }),
  };
  const client = createAuxiliaryClient({ config: {}, mainRoute, env: {} });
  browser = browserHarness({
    allowPrivateUrls: true,
    home,
    analyze: visionAnalyzer(async () => client),
  });
});

after(async () => {
  await browser.tools.close();
  await fake.close();
  await site.close();
});

test("the ten browser tools are registered, available with Chromium on PATH, and their output is fenced as untrusted", async (t) => {
  if (withoutChromium(t)) return;
  for (const name of BROWSER_TOOLS) {
    const spec = browser.registry.get(name);
    assert.ok(spec, `${name} is registered`);
    assert.equal(spec.toolset, "browser");
    assert.equal(spec.untrustedOutput, true, `${name} output is fenced`);
    assert.equal(await browser.registry.isAvailable(name), true);
  }
});

test("hidden behind tool_search (they are rarely used), the browser tools are named once, by their prefix", () => {
  const published = publishTools(browser.registry, BROWSER_TOOLS, 1);
  assert.deepEqual(published.hidden.map((d) => d.function.name).sort(), [...BROWSER_TOOLS].sort());
  const search = published.definitions.find((d) => d.function.name === TOOL_SEARCH);
  assert.match(String(search?.function.description), /Find hidden tools \(browser_\* \(10 tools\)\) by what they do/);
});

test("browser_navigate opens the page and returns its title, final URL and a snapshot with refs", async (t) => {
  if (withoutChromium(t)) return;
  const result = await browser.call("browser_navigate", { url: `${site.base}/form` }, "navigate");
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.title, "Sign up");
  assert.equal(result.url, `${site.base}/form`);
  const snapshot = String(result.snapshot);
  assert.match(snapshot, /- heading "Sign up" \[level=1\]/);
  assert.match(snapshot, /- textbox "Name" @e\d+/);
  assert.match(snapshot, /- button "Greet" @e\d+/);
  assert.match(snapshot, /- link "Next page" @e\d+/);
  assert.match(snapshot, /Nobody greeted yet/);
});

test("typing into a field and clicking a button: the returned snapshot shows what the click changed", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "click");
  const typed = await browser.call(
    "browser_type",
    { ref: refOf(opened.snapshot, "textbox", "Name"), text: "Ada" },
    "click",
  );
  assert.equal(typed.success, true, JSON.stringify(typed));
  assert.match(String(typed.snapshot), /- textbox "Name" @e\d+ value="Ada"/);
  const clicked = await browser.call("browser_click", { ref: refOf(typed.snapshot, "button", "Greet") }, "click");
  assert.equal(clicked.success, true, JSON.stringify(clicked));
  assert.match(String(clicked.snapshot), /Hello, Ada/);
  assert.doesNotMatch(String(clicked.snapshot), /Nobody greeted yet/);
});

test("typing replaces what the field held, and submit: true sends the form and lands on the next page", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "submit");
  const field = refOf(opened.snapshot, "textbox", "Name");
  await browser.call("browser_type", { ref: field, text: "first" }, "submit");
  const sent = await browser.call("browser_type", { ref: field, text: "Grace", submit: true }, "submit");
  assert.equal(sent.success, true, JSON.stringify(sent));
  assert.equal(sent.title, "Done");
  assert.equal(sent.url, `${site.base}/done?name=Grace`);
  assert.match(String(sent.snapshot), /Thanks, Grace/);
});

test("browser_press Enter in a focused field submits its form; an unknown key name is an error", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "press");
  await browser.call("browser_type", { ref: refOf(opened.snapshot, "textbox", "Name"), text: "Linus" }, "press");
  const pressed = await browser.call("browser_press", { key: "Enter" }, "press");
  assert.equal(pressed.url, `${site.base}/done?name=Linus`);
  assert.match(String(pressed.snapshot), /Thanks, Linus/);
  const unknown = await browser.call("browser_press", { key: "Hyper" }, "press");
  assert.equal(unknown.success, false);
  assert.match(String(unknown.error), /Unknown key "Hyper"/);
});

test("a checkbox is ticked by a click; a list option is picked by typing its label or clicking its ref", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/choices` }, "choices");
  assert.match(String(opened.snapshot), /- checkbox "Agree" @e\d+ \[unchecked\]/);
  const ticked = await browser.call("browser_click", { ref: refOf(opened.snapshot, "checkbox", "Agree") }, "choices");
  assert.match(String(ticked.snapshot), /- checkbox "Agree" @e\d+ \[checked\]/);
  const typed = await browser.call(
    "browser_type",
    { ref: refOf(ticked.snapshot, "combobox", "Colour"), text: "green" },
    "choices",
  );
  assert.match(String(typed.snapshot), /- combobox "Colour" @e\d+ value="Green"/);
  assert.match(String(typed.snapshot), /Picked g/);
  const clicked = await browser.call("browser_click", { ref: refOf(typed.snapshot, "option", "Blue") }, "choices");
  assert.match(String(clicked.snapshot), /Picked b/);
  const missing = await browser.call(
    "browser_type",
    { ref: refOf(clicked.snapshot, "combobox", "Colour"), text: "Mauve" },
    "choices",
  );
  assert.equal(missing.success, false);
  assert.match(String(missing.error), /a list without an option called "Mauve"/);
});

test("clicking a link follows it, and browser_back returns to the page before", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "back");
  const followed = await browser.call("browser_click", { ref: refOf(opened.snapshot, "link", "Next page") }, "back");
  assert.equal(followed.url, `${site.base}/second`);
  assert.match(String(followed.snapshot), /You reached the second page/);
  const back = await browser.call("browser_back", {}, "back");
  assert.equal(back.success, true, JSON.stringify(back));
  assert.equal(back.url, `${site.base}/form`);
  assert.match(String(back.snapshot), /- button "Greet" @e\d+/);
});

test("browser_back with no earlier page says so", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/second` }, "no-back");
  const back = await browser.call("browser_back", {}, "no-back");
  assert.equal(back.success, false);
  assert.match(String(back.error), /no earlier page/);
});

test("an unknown ref, and a ref from before a navigation, are errors that say to take a snapshot", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "refs");
  const greet = refOf(opened.snapshot, "button", "Greet");
  const unknown = await browser.call("browser_click", { ref: "@e999" }, "refs");
  assert.equal(unknown.success, false);
  assert.match(String(unknown.error), /Unknown ref "@e999".*browser_snapshot/);
  await browser.call("browser_navigate", { url: `${site.base}/second` }, "refs");
  const stale = await browser.call("browser_click", { ref: greet }, "refs");
  assert.equal(stale.success, false);
  assert.match(String(stale.error), /browser_snapshot/);
});

test("a ref whose element has left the page, or has no box to click, is an error that says so", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/vanish` }, "vanish");
  const tiny = await browser.call("browser_click", { ref: refOf(opened.snapshot, "button", "Tiny") }, "vanish");
  assert.equal(tiny.success, false);
  assert.match(String(tiny.error), /has no visible box to click/);
  // Start asks the site for a go-ahead; the page removes the Doomed button once the test gives it,
  // after the snapshot that names the button.
  const started = await browser.call("browser_click", { ref: refOf(opened.snapshot, "button", "Start") }, "vanish");
  const doomed = refOf(started.snapshot, "button", "Doomed");
  site.releaseVanish();
  await site.vanished;
  const gone = await browser.call("browser_click", { ref: doomed }, "vanish");
  assert.equal(gone.success, false);
  assert.equal(gone.error, `${doomed} is no longer on the page. Take a new browser_snapshot.`);
});

test("a long page's snapshot is cut at 8,000 characters and says so; full: true shows more", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/long` }, "long");
  const snapshot = String(opened.snapshot);
  assert.ok(snapshot.length < 8_300, `snapshot is ${snapshot.length} characters`);
  assert.match(
    snapshot,
    /\[snapshot cut at 8000 characters: \d+ more line\(s\) not shown; call browser_snapshot with full: true/,
  );
  const full = await browser.call("browser_snapshot", { full: true }, "long");
  assert.ok(String(full.snapshot).length > 8_300);
  assert.match(String(full.snapshot), /Filler paragraph number 399/);
});

test("browser_scroll moves the view down by most of a screen and back up, saying where it is", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/long` }, "scroll");
  const down = await browser.call("browser_scroll", { direction: "down" }, "scroll");
  assert.equal(down.success, true, JSON.stringify(down));
  const top = Number(/showing pixels (\d+)-/.exec(String(down.view))?.[1]);
  assert.ok(top > 300, String(down.view));
  const up = await browser.call("browser_scroll", { direction: "up" }, "scroll");
  assert.match(String(up.view), /showing pixels 0-\d+ of \d+.*\(the top\)/);
});

test("browser_get_images lists each image's URL, alt text and natural size", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/images` }, "images");
  const result = await browser.call("browser_get_images", {}, "images");
  assert.equal(result.success, true);
  assert.equal(result.count, 2);
  assert.deepEqual(result.images, [
    { src: `${site.base}/pixel.png`, alt: "A red and a blue pixel", width: 2, height: 1 },
    { src: `${site.base}/missing.png`, alt: "Broken one", width: 0, height: 0 },
  ]);
});

test("browser_console returns the page's logs, warnings, failed loads and uncaught errors; clear empties it", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/console` }, "console");
  const result = await browser.call("browser_console", {}, "console");
  const messages = result.messages as string[];
  assert.ok(messages.includes("[log] hello from the page"), JSON.stringify(messages));
  assert.ok(messages.includes("[warning] careful 42"), JSON.stringify(messages));
  assert.ok(
    messages.some((m) => m.startsWith("[uncaught] Error: boom while loading")),
    JSON.stringify(messages),
  );
  const cleared = await browser.call("browser_console", { clear: true }, "console");
  assert.equal(cleared.cleared, true);
  const empty = await browser.call("browser_console", {}, "console");
  assert.deepEqual(empty.messages, []);
});

test("a failed sub-resource load is in the console log", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/images` }, "console-404");
  const result = await browser.call("browser_console", {}, "console-404");
  const messages = result.messages as string[];
  assert.ok(
    messages.some((m) => m.startsWith("[error]") && m.includes("404") && m.includes("/missing.png")),
    JSON.stringify(messages),
  );
});

test("must_respond: a confirm() stops the click, other tools are refused, Enter accepts it and Escape dismisses it", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/confirm` }, "dialog");
  const button = refOf(opened.snapshot, "button", "Delete");
  const clicked = await browser.call("browser_click", { ref: button }, "dialog");
  assert.equal(clicked.success, true);
  assert.deepEqual(clicked.dialog, { type: "confirm", message: "Delete everything?" });
  assert.match(String(clicked.hint), /browser_press Enter accepts it/);
  assert.equal(clicked.snapshot, undefined);
  const refused = await browser.call("browser_snapshot", {}, "dialog");
  assert.equal(refused.success, false);
  assert.match(String(refused.error), /A JavaScript confirm is open \("Delete everything\?"\)/);
  const accepted = await browser.call("browser_press", { key: "Enter" }, "dialog");
  assert.match(String(accepted.answered), /was accepted/);
  assert.match(String(accepted.snapshot), /confirmed/);

  const again = await browser.call("browser_click", { ref: refOf(accepted.snapshot, "button", "Delete") }, "dialog");
  assert.equal((again.dialog as { type: string }).type, "confirm");
  const dismissed = await browser.call("browser_press", { key: "Escape" }, "dialog");
  assert.match(String(dismissed.answered), /was dismissed/);
  assert.match(String(dismissed.snapshot), /cancelled/);
});

test("browser_vision saves a PNG screenshot, asks the vision model with it, and returns the answer and a MEDIA: tag", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/form` }, "vision");
  fake.requests.length = 0;
  fake.setScript([{ text: "A sign-up form with one field." }]);
  const result = await browser.call("browser_vision", { question: "What is on the page?" }, "vision");
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.analysis, "A sign-up form with one field.");
  const path = String(result.screenshot_path);
  assert.ok(path.startsWith(`${home}/cache/screenshots/browser-`) && path.endsWith(".png"), path);
  assert.equal(result.media_tag, `MEDIA:${path}`);
  const png = readFileSync(path);
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const parts = fake.requests[0]?.body?.messages?.[0]?.content as Array<{
    type: string;
    text?: string;
    image_url?: { url: string };
  }>;
  assert.deepEqual(parts[0], { type: "text", text: "What is on the page?" });
  assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${png.toString("base64")}`);
});

test("each session has its own tab and cookies; a session without a tab is told to navigate first", async (t) => {
  if (withoutChromium(t)) return;
  await browser.call("browser_navigate", { url: `${site.base}/set-cookie` }, "cookie-a");
  const a = await browser.call("browser_navigate", { url: `${site.base}/show-cookie` }, "cookie-a");
  assert.match(String(a.snapshot), /Cookie: visited=yes/);
  const b = await browser.call("browser_navigate", { url: `${site.base}/show-cookie` }, "cookie-b");
  assert.match(String(b.snapshot), /Cookie: no cookie/);
  const none = await browser.call("browser_snapshot", {}, "never-navigated");
  assert.equal(none.success, false);
  assert.match(String(none.error), /No page is open in this session\. Open one with browser_navigate first/);
});

test("a download is refused, and nothing but http(s) URLs are opened", async (t) => {
  if (withoutChromium(t)) return;
  const download = await browser.call("browser_navigate", { url: `${site.base}/download` }, "download");
  assert.equal(download.success, false);
  assert.match(String(download.error), /file download, and the browser downloads nothing/);
  for (const url of ["file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "not a url"]) {
    const refused = await browser.call("browser_navigate", { url }, "download");
    assert.equal(refused.success, false, url);
    assert.match(String(refused.error), /Only http:\/\/ and https:\/\/ pages|is not a URL/, url);
  }
});

test("a password field's value never reaches the snapshot", async (t) => {
  if (withoutChromium(t)) return;
  const opened = await browser.call("browser_navigate", { url: `${site.base}/form` }, "password");
  assert.match(String(opened.snapshot), /- textbox "Password" @e\d+/);
  assert.doesNotMatch(String(opened.snapshot), /hunter2/);
});
