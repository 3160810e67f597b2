import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { fetchPage } from "../../src/tools/web/fetch-page.js";
import { isPrivateAddress, privateUrlReason } from "../../src/tools/web/url-guard.js";

test("private, loopback, link-local and reserved addresses are told apart from public ones", () => {
  const local = [
    "10.1.2.3",
    "127.0.0.1",
    "127.255.0.9",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "64:ff9b::a00:1",
    "fe80::1%eth0",
  ];
  const world = [
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "93.184.216.34",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
  ];
  for (const address of local) assert.equal(isPrivateAddress(address), true, address);
  for (const address of world) assert.equal(isPrivateAddress(address), false, address);
});

test("a URL is refused for a local name, a private literal, or a name that resolves to a private address", async () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
  const lookup = resolver({ "intranet.example": ["8.8.4.4", "10.0.0.7"], "docs.example": ["93.184.216.34"] });
  const reason = (url: string) => privateUrlReason(new URL(url), lookup);
  assert.match((await reason("http://localhost:8080/")) ?? "", /this machine.*web\.allow_private_urls: true/);
  assert.match((await reason("http://app.localhost/")) ?? "", /this machine/);
  assert.match((await reason("http://169.254.169.254/latest/meta-data/")) ?? "", /private or local address/);
  assert.match((await reason("http://[::1]:3000/")) ?? "", /private or local address/);
  assert.match((await reason("https://intranet.example/")) ?? "", /private or local address 10\.0\.0\.7/);
  assert.equal(await reason("https://docs.example/page"), null);
  assert.equal(await reason("https://8.8.8.8/"), null);
  assert.equal(await reason("https://no-such-name.example/"), null, "an unknown name is left to the fetch to report");
});

let base = "";
const server = createServer((req, res) => {
  if (req.url === "/hop") res.writeHead(302, { location: "/inner" }).end();
  else if (req.url === "/loop") res.writeHead(302, { location: "/loop" }).end();
  else if (req.url === "/to-file") res.writeHead(302, { location: "file:///etc/passwd" }).end();
  else if (req.url === "/inner") res.writeHead(200, { "content-type": "text/plain" }).end("inner page");
  else res.writeHead(404).end();
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const signal = new AbortController().signal;

test("web_extract's own fetch refuses a loopback page unless private URLs are allowed", async () => {
  const refused = await fetchPage(`${base}/inner`, signal);
  assert.match(refused.error ?? "", /web\.allow_private_urls/);
  const allowed = await fetchPage(`${base}/inner`, signal, { allowPrivate: true });
  assert.equal(allowed.content, "inner page");
});

test("every redirect hop is checked, so an allowed page cannot send the fetch somewhere refused", async () => {
  const onlyTheFirstHop = async (url: URL) => (url.pathname === "/hop" ? null : `refused ${url.pathname}`);
  const hop = await fetchPage(`${base}/hop`, signal, { checkUrl: onlyTheFirstHop });
  assert.equal(hop.error, "refused /inner");
  const everything = async () => null;
  const followed = await fetchPage(`${base}/hop`, signal, { checkUrl: everything });
  assert.equal(followed.content, "inner page");
  assert.equal(followed.url, `${base}/inner`);
  assert.match(
    (await fetchPage(`${base}/loop`, signal, { checkUrl: everything })).error ?? "",
    /more than 5 redirects/,
  );
  assert.match((await fetchPage(`${base}/to-file`, signal, { checkUrl: everything })).error ?? "", /file: URL/);
});
