import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyCacheMarkers, type CacheableRequest } from "../../src/llm/prompt-caching.js";

const EPHEMERAL = { type: "ephemeral" };

function chatRequest(withTools: boolean): CacheableRequest {
  return {
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "u1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: [{ type: "text", text: "u3" }] },
    ],
    ...(withTools ? { tools: [{ name: "t1" }, { name: "t2" }] } : {}),
  };
}

function markerCount(value: unknown): number {
  return (JSON.stringify(value).match(/cache_control/g) ?? []).length;
}

describe("applyCacheMarkers", () => {
  test("without tools: the system prompt and the last 3 messages", () => {
    const req = applyCacheMarkers(chatRequest(false));
    assert.equal(markerCount(req), 4);
    assert.deepEqual(req.messages[0]!.content, [{ type: "text", text: "sys", cache_control: EPHEMERAL }]);
    assert.equal(typeof req.messages[2]!.content, "string");
    for (const i of [3, 4, 5]) {
      const parts = req.messages[i]!.content as Array<{ cache_control?: unknown }>;
      assert.deepEqual(parts.at(-1)?.cache_control, EPHEMERAL, `message ${i}`);
    }
  });

  test("with tools: the last tool, the system prompt and the last 2 messages", () => {
    const req = applyCacheMarkers(chatRequest(true));
    assert.equal(markerCount(req), 4);
    assert.deepEqual(req.tools?.[1]?.cache_control, EPHEMERAL);
    assert.equal(req.tools?.[0]?.cache_control, undefined);
    assert.equal(typeof req.messages[3]!.content, "string");
    assert.ok(Array.isArray(req.messages[4]!.content));
  });

  test("a 1h TTL is carried on every marker", () => {
    const req = applyCacheMarkers(chatRequest(true), { ttl: "1h" });
    assert.equal((JSON.stringify(req).match(/"ttl":"1h"/g) ?? []).length, 4);
  });

  test("native requests mark the top-level system and skip thinking blocks", () => {
    const req = applyCacheMarkers({
      system: [{ type: "text", text: "sys" }],
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "a" },
            { type: "thinking", thinking: "t", signature: "s" },
          ],
        },
      ],
    });
    assert.deepEqual((req.system as Array<Record<string, unknown>>)[0]?.cache_control, EPHEMERAL);
    const assistant = req.messages[1]!.content as Array<Record<string, unknown>>;
    assert.deepEqual(assistant[0]?.cache_control, EPHEMERAL);
    assert.equal(assistant[1]?.cache_control, undefined);
  });

  test("messages with nothing to mark do not use up a breakpoint", () => {
    const req = applyCacheMarkers({
      messages: [
        { role: "user", content: "u1" },
        { role: "user", content: "u2" },
        { role: "assistant", content: null },
        { role: "tool", content: "" },
      ],
    });
    assert.equal(markerCount(req), 2);
  });
});
