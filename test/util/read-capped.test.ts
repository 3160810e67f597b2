import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { BodyTooLarge, readResponseCapped } from "../../src/util/read-capped.js";

let base = "";
const server = createServer((req, res) => {
  if (req.url === "/declared") {
    res.writeHead(200, { "content-length": "5000" });
    res.end("x".repeat(5000));
  } else if (req.url === "/chunked") {
    // No length: the reader must stop counting at the cap, not trust a header.
    res.writeHead(200, { "transfer-encoding": "chunked" });
    for (let i = 0; i < 50; i++) res.write("y".repeat(100));
    res.end();
  } else {
    res.end("small");
  }
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

test("a body within the cap is read whole", async () => {
  assert.equal((await readResponseCapped(await fetch(`${base}/small`), 100)).toString(), "small");
});

test("a declared length over the cap is refused before reading; a chunked one when the count passes it", async () => {
  await assert.rejects(readResponseCapped(await fetch(`${base}/declared`), 1000), (error: unknown) => {
    assert.ok(error instanceof BodyTooLarge);
    assert.equal(error.declared, 5000);
    return true;
  });
  await assert.rejects(readResponseCapped(await fetch(`${base}/chunked`), 1000), (error: unknown) => {
    assert.ok(error instanceof BodyTooLarge);
    assert.equal(error.declared, undefined);
    assert.equal(error.maxBytes, 1000);
    return true;
  });
});
