/**
 * What pages may reach, against the real Chromium: private addresses are refused for the URL the
 * model gives, for a redirect of the main frame and for a page's own requests; the website
 * blocklist likewise. The site runs on 127.0.0.1, so these tests stand a second local server in
 * for the private network (the URL check calls its port private).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { WebsiteBlocklist } from "../../src/tools/web/blocklist.js";
import { tempDir } from "../state/temp-dir.js";
import { type BrowserHarness, browserHarness, type Site, startSite, withoutChromium } from "./browser-site.js";

let site: Site;
let guarded: BrowserHarness;

before(async () => {
  site = await startSite();
  guarded = browserHarness({
    allowPrivateUrls: false,
    checkUrl: async (url) => (site.isPrivate(url) ? `${url.host} is a private address (test)` : null),
  });
});

after(async () => {
  await guarded.tools.close();
  await site.close();
});

test("without browser.allow_private_urls a loopback URL is refused before any browser starts", async () => {
  const browser = browserHarness({});
  const result = await browser.call("browser_navigate", { url: `${site.base}/form` });
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /127\.0\.0\.1:\d+ is a private or local address; the browser reads only public addresses \(set browser\.allow_private_urls: true/,
  );
  const localhost = await browser.call("browser_navigate", { url: "http://localhost:9/" });
  assert.match(String(localhost.error), /is this machine/);
  assert.equal(browser.tools.current?.pid, undefined);
  await browser.tools.close();
});

test("a public page that redirects to a private address is stopped at the redirect, which is never requested", async (t) => {
  if (withoutChromium(t)) return;
  const result = await guarded.call("browser_navigate", { url: `${site.base}/to-private` });
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(
    result.error,
    `Refused to load ${site.privateBase}/secret: ${new URL(site.privateBase).host} is a private address (test)`,
  );
  assert.deepEqual(site.privateHits, []);
});

test("a public page's own request to a private address is refused and reported with the next result", async (t) => {
  if (withoutChromium(t)) return;
  const result = await guarded.call("browser_navigate", { url: `${site.base}/private-image` });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.match(String(result.snapshot), /A public page/);
  assert.deepEqual(result.notes, [
    `Refused a request of the page to ${site.privateBase}/secret.png: ${new URL(site.privateBase).host} is a private address (test)`,
  ]);
  assert.deepEqual(site.privateHits, []);
});

test("a frame running in a process of its own is guarded too: its request to a private address is refused", async (t) => {
  if (withoutChromium(t)) return;
  const result = await guarded.call("browser_navigate", { url: `${site.base}/outer` });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.match(String(result.snapshot), /- Iframe/);
  assert.deepEqual(result.notes, [
    `Refused a request of the page to ${site.privateBase}/from-frame.png: ${new URL(site.privateBase).host} is a private address (test)`,
  ]);
  assert.deepEqual(site.privateHits, []);
});

test("the website blocklist refuses a blocked site, directly and through a redirect", async (t) => {
  if (withoutChromium(t)) return;
  const blocklist = new WebsiteBlocklist(
    { enabled: true, domains: ["blocked.example"], shared_files: [] },
    tempDir("hermes-browser-blocklist-"),
  );
  const browser = browserHarness({ allowPrivateUrls: true, blocklist });
  try {
    const direct = await browser.call("browser_navigate", { url: "http://blocked.example/page" });
    assert.equal(direct.success, false);
    assert.match(String(direct.error), /blocked\.example/);
    const redirected = await browser.call("browser_navigate", { url: `${site.base}/to-blocked` });
    assert.equal(redirected.success, false, JSON.stringify(redirected));
    assert.match(String(redirected.error), /^Refused to load http:\/\/blocked\.example\/landing: .*blocked\.example/);
    const allowed = await browser.call("browser_navigate", { url: `${site.base}/second` });
    assert.equal(allowed.success, true);
  } finally {
    await browser.tools.close();
  }
});
