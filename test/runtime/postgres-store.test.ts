import assert from "node:assert/strict";
import { test } from "node:test";
import { openSessionStore } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const pg = postgresOrSkip();

if (pg) {
  test("with store.backend postgres, a runtime keeps its sessions in PostgreSQL and writes no state.db", async () => {
    const url = await pg.database();
    const t = await openTestRuntime({
      config: `store:\n  backend: postgres\n  postgres_url: ${url}\n`,
      script: [{ text: "stored in postgres" }],
    });
    try {
      assert.equal(t.runtime.storeLocation, url);
      const agent = t.runtime.createAgent({ platform: "api_server" });
      const result = await agent.runConversation("where do you keep this?");
      assert.equal(result.finalResponse, "stored in postgres");
      const { existsSync } = await import("node:fs");
      const { join } = await import("node:path");
      assert.equal(existsSync(join(t.home, "state.db")), false);
      const store = await openSessionStore(url);
      try {
        const [session] = await store.listSessions();
        assert.equal(session?.source, "api_server");
        assert.deepEqual(
          (await store.getMessages(session!.id)).map((m) => m.content),
          ["where do you keep this?", "stored in postgres"],
        );
        assert.equal((await store.search("keep"))[0]?.sessionId, session!.id);
      } finally {
        store.close();
      }
    } finally {
      await t.close();
    }
  });
}
