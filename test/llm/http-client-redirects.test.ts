import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import { httpRequest } from "../../src/llm/http-client.js";
import { closedPort, type SeenRequest, signalled, startLoggingServer } from "./http-client-helpers.js";

/** A server that redirects `/from/<status>` to `/to` with that status and echoes everything else. */
async function redirectingServer() {
  return startLoggingServer((req, res) => {
    const match = /^\/from\/(\d+)$/.exec(req.url ?? "");
    if (match) res.writeHead(Number(match[1]), { location: "/to" }).end();
    else res.end("landed");
  });
}

const landing = (requests: SeenRequest[]) => requests.filter((seen) => seen.url === "/to");

describe("httpRequest redirect methods and bodies", () => {
  test("a POST redirected by 301, 302 or 303 is followed with a GET without the body or its content headers", async () => {
    const server = await redirectingServer();
    try {
      const headers = { "Content-Type": "application/json", "Content-Length": "2", "X-Trace": "t-1" };
      for (const status of [301, 302, 303]) {
        const response = await httpRequest(`${server.url}/from/${status}`, { method: "POST", headers, body: "{}" });
        assert.equal(response.status, 200, String(status));
        assert.equal(await response.text(), "landed");
      }
      // Without a method, a request with a body is a POST and is rewritten the same way.
      await (await httpRequest(`${server.url}/from/303`, { headers, body: "{}" })).text();
      const landed = landing(server.requests);
      assert.equal(landed.length, 4);
      for (const seen of landed) {
        assert.equal(seen.method, "GET");
        assert.equal(seen.body.length, 0);
        assert.equal(seen.headers["content-type"], undefined);
        assert.equal(seen.headers["content-length"], undefined);
        assert.equal(seen.headers["x-trace"], "t-1");
      }
    } finally {
      await server.close();
    }
  });

  test("a 307 or 308 resends the same method, body and content headers", async () => {
    const server = await redirectingServer();
    try {
      const headers = { "content-type": "application/json" };
      for (const status of [307, 308]) {
        const response = await httpRequest(`${server.url}/from/${status}`, {
          method: "PATCH",
          headers,
          body: '{"a":1}',
        });
        assert.equal(await response.text(), "landed");
      }
      for (const seen of landing(server.requests)) {
        assert.equal(seen.method, "PATCH");
        assert.equal(seen.body.toString(), '{"a":1}');
        assert.equal(seen.headers["content-type"], "application/json");
        assert.equal(seen.headers["content-length"], "7");
      }
      assert.equal(landing(server.requests).length, 2);
    } finally {
      await server.close();
    }
  });

  test("a redirected GET or HEAD keeps its method and headers, whatever the method's case", async () => {
    const server = await redirectingServer();
    try {
      const headers = { "content-type": "text/plain" };
      await (await httpRequest(`${server.url}/from/302`, { headers })).text();
      await (await httpRequest(`${server.url}/from/302`, { method: "get", headers })).text();
      await (await httpRequest(`${server.url}/from/301`, { method: "head", headers })).text();
      await (await httpRequest(`${server.url}/from/303`, { method: "HEAD", headers })).text();
      assert.deepEqual(
        landing(server.requests).map((seen) => [seen.method, seen.headers["content-type"]]),
        [
          ["GET", "text/plain"],
          ["GET", "text/plain"],
          ["HEAD", "text/plain"],
          ["HEAD", "text/plain"],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test("a redirected DELETE or PUT without a body becomes a GET", async () => {
    const server = await redirectingServer();
    try {
      await (await httpRequest(`${server.url}/from/302`, { method: "DELETE" })).text();
      await (await httpRequest(`${server.url}/from/303`, { method: "put" })).text();
      assert.deepEqual(
        landing(server.requests).map((seen) => seen.method),
        ["GET", "GET"],
      );
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest redirect credentials", () => {
  const credentials = {
    Authorization: "Bearer sk-secret",
    "X-Api-Key": "sk-anthropic",
    "API-KEY": "sk-azure",
    Cookie: "session=1",
  };

  test("a redirect to another port of the same host drops every credential header, whatever its case", async () => {
    const other = await startLoggingServer((_req, res) => res.end("other"));
    const origin = await startLoggingServer((_req, res) => {
      res.writeHead(307, { location: `${other.url}/elsewhere` }).end();
    });
    try {
      const response = await httpRequest(`${origin.url}/away`, {
        method: "POST",
        body: "{}",
        headers: { ...credentials, "X-Title": "Hermes" },
      });
      assert.equal(await response.text(), "other");
      const [seen] = other.requests;
      assert.equal(seen?.url, "/elsewhere");
      assert.equal(seen?.headers.authorization, undefined);
      assert.equal(seen?.headers["x-api-key"], undefined);
      assert.equal(seen?.headers["api-key"], undefined);
      assert.equal(seen?.headers.cookie, undefined);
      assert.equal(seen?.headers["x-title"], "Hermes");
      assert.equal(seen?.body.toString(), "{}");
    } finally {
      await origin.close();
      await other.close();
    }
  });

  test("a redirect within the same origin keeps every credential header", async () => {
    const server = await redirectingServer();
    try {
      await (await httpRequest(`${server.url}/from/308`, { method: "POST", body: "{}", headers: credentials })).text();
      const [seen] = landing(server.requests);
      assert.equal(seen?.headers.authorization, "Bearer sk-secret");
      assert.equal(seen?.headers["x-api-key"], "sk-anthropic");
      assert.equal(seen?.headers["api-key"], "sk-azure");
      assert.equal(seen?.headers.cookie, "session=1");
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest redirect chains", () => {
  test("relative locations resolve against the URL of the hop that sent them", async () => {
    const server = await startLoggingServer((req, res) => {
      if (req.url === "/a/b/start") res.writeHead(302, { location: "next" }).end();
      else if (req.url === "/a/b/next") res.writeHead(302, { location: "../up?x=1" }).end();
      else res.end(`final ${req.url}`);
    });
    try {
      const response = await httpRequest(`${server.url}/a/b/start`);
      assert.equal(await response.text(), "final /a/up?x=1");
      assert.deepEqual(
        server.requests.map((seen) => seen.url),
        ["/a/b/start", "/a/b/next", "/a/up?x=1"],
      );
    } finally {
      await server.close();
    }
  });

  test("five redirects are followed and a sixth is returned as it is", async () => {
    // /hop/<n>/<limit> redirects to /hop/<n+1>/<limit> until n reaches limit.
    const server = await startLoggingServer((req, res) => {
      const [, n, limit] = (req.url ?? "").split("/").slice(1);
      if (Number(n) < Number(limit)) {
        res.writeHead(302, { location: `/hop/${Number(n) + 1}/${limit}` }).end(`redirect ${n}`);
      } else res.end(`arrived ${n}`);
    });
    try {
      const five = await httpRequest(`${server.url}/hop/0/5`);
      assert.equal(five.status, 200);
      assert.equal(await five.text(), "arrived 5");
      const six = await httpRequest(`${server.url}/hop/0/6`);
      assert.equal(six.status, 302);
      assert.equal(six.headers.location, "/hop/6/6");
      assert.equal(await six.text(), "redirect 5");
      assert.equal(server.requests.filter((seen) => seen.url.endsWith("/6")).length, 6);
    } finally {
      await server.close();
    }
  });

  test("a redirect status without a location, or a location on another status, is returned as it is", async () => {
    const server = await startLoggingServer((req, res) => {
      if (req.url === "/no-location") res.writeHead(302).end("no location");
      else if (req.url === "/created") res.writeHead(201, { location: "/elsewhere" }).end("created");
      else if (req.url === "/choices") res.writeHead(300, { location: "/elsewhere" }).end("choices");
      else res.end("followed");
    });
    try {
      for (const [path, status, text] of [
        ["/no-location", 302, "no location"],
        ["/created", 201, "created"],
        ["/choices", 300, "choices"],
      ] as const) {
        const response = await httpRequest(`${server.url}${path}`);
        assert.equal(response.status, status);
        assert.equal(await response.text(), text);
      }
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  test("the next hop keeps the caller's context and signal", async () => {
    const port = await closedPort();
    const arrived = signalled();
    const server = await startLoggingServer((req, res) => {
      if (req.url === "/dead") res.writeHead(302, { location: `http://127.0.0.1:${port}/gone` }).end();
      else if (req.url === "/slow") res.writeHead(307, { location: "/hang" }).end();
      else arrived.resolve();
    });
    try {
      await assert.rejects(
        httpRequest(`${server.url}/dead`, { context: { provider: "acme", model: "m1" } }),
        (e: unknown) =>
          e instanceof LlmError &&
          e.kind === "network" &&
          e.provider === "acme" &&
          e.model === "m1" &&
          e.url === `http://127.0.0.1:${port}/gone` &&
          e.message === `Could not reach 127.0.0.1:${port} (ECONNREFUSED).`,
      );
      const controller = new AbortController();
      const pending = httpRequest(`${server.url}/slow`, { signal: controller.signal, context: { provider: "acme" } });
      await arrived.promise;
      controller.abort();
      await assert.rejects(
        pending,
        (e: unknown) => e instanceof LlmError && e.kind === "abort" && e.provider === "acme",
      );
    } finally {
      await server.close();
    }
  });
});
