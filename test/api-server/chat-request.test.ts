import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseChatRequest } from "../../src/api-server/chat-request.js";
import { ApiError } from "../../src/api-server/errors.js";

/** Asserts `body` is rejected with a 400 naming `param`, and a message matching `message`. */
function rejects(body: unknown, param: string | null, message: RegExp): void {
  assert.throws(
    () => parseChatRequest(body),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
      assert.equal(error.status, 400);
      assert.equal(error.body.error.type, "invalid_request_error");
      assert.equal(error.body.error.param, param);
      assert.match(error.body.error.message, message);
      return true;
    },
  );
}

const user = (content: unknown) => ({ role: "user", content });

describe("parseChatRequest", () => {
  test("a single user message becomes the input with defaults for everything else", () => {
    assert.deepEqual(parseChatRequest({ messages: [user("hi")] }), {
      model: "",
      stream: false,
      includeUsage: false,
      instructions: "",
      history: [],
      input: "hi",
    });
  });

  test("reads model, stream, include_usage, temperature and max tokens", () => {
    const request = parseChatRequest({
      model: "hermes-agent",
      messages: [user("hi")],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_tokens: 100,
      n: 1,
    });
    assert.equal(request.model, "hermes-agent");
    assert.equal(request.stream, true);
    assert.equal(request.includeUsage, true);
    assert.equal(request.temperature, 0.3);
    assert.equal(request.maxTokens, 100);
  });

  test("max_completion_tokens wins over the older max_tokens", () => {
    const request = parseChatRequest({ messages: [user("hi")], max_tokens: 10, max_completion_tokens: 20 });
    assert.equal(request.maxTokens, 20);
  });

  test("null optional parameters count as absent, as OpenAI treats them", () => {
    const request = parseChatRequest({
      model: null,
      messages: [user("hi")],
      stream: null,
      n: null,
      temperature: null,
      stream_options: null,
    });
    assert.equal(request.stream, false);
    assert.equal("temperature" in request, false);
  });

  test("system and developer messages are joined in order into the instructions", () => {
    const request = parseChatRequest({
      messages: [
        { role: "system", content: "Be brief." },
        user("one"),
        {
          role: "developer",
          content: [
            { type: "text", text: "Use " },
            { type: "text", text: "metric." },
          ],
        },
        { role: "assistant", content: "ok" },
        user("two"),
      ],
    });
    assert.equal(request.instructions, "Be brief.\n\nUse metric.");
    assert.deepEqual(request.history, [
      { role: "user", content: "one" },
      { role: "assistant", content: "ok" },
    ]);
    assert.equal(request.input, "two");
  });

  test("assistant tool calls and tool results survive into the history, results named after their call", () => {
    const call = { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } };
    const request = parseChatRequest({
      messages: [
        user("find x"),
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "found" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "it is " },
            { type: "refusal", refusal: "no" },
          ],
        },
        user("thanks"),
      ],
    });
    assert.deepEqual(request.history, [
      { role: "user", content: "find x" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", content: "found", tool_call_id: "call_1", name: "lookup" },
      { role: "assistant", content: "it is no" },
    ]);
  });

  test("text and image_url parts become our content parts", () => {
    const request = parseChatRequest({
      messages: [
        user([
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        ]),
      ],
    });
    assert.deepEqual(request.input, [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ]);
  });

  test("tools and tool_choice from the client are ignored", () => {
    const request = parseChatRequest({
      messages: [user("hi")],
      tools: [{ type: "function", function: { name: "x", parameters: {} } }],
      tool_choice: "required",
    });
    assert.equal(request.input, "hi");
  });

  test("rejects a body that is not an object", () => {
    rejects([], null, /JSON object/);
    rejects("hi", null, /JSON object/);
  });

  test("rejects missing, non-array and empty messages", () => {
    rejects({}, "messages", /messages must be an array/);
    rejects({ messages: "hi" }, "messages", /messages must be an array/);
    rejects({ messages: [] }, "messages", /at least one message/);
  });

  test("rejects a non-string model, a non-boolean stream and n other than 1", () => {
    rejects({ model: 4, messages: [user("hi")] }, "model", /model must be a string/);
    rejects({ stream: "yes", messages: [user("hi")] }, "stream", /stream must be a boolean/);
    rejects({ n: 2, messages: [user("hi")] }, "n", /n must be 1/);
  });

  test("rejects bad stream_options, temperature and max token values", () => {
    rejects({ stream_options: true, messages: [user("hi")] }, "stream_options", /must be an object/);
    rejects(
      { stream_options: { include_usage: "yes" }, messages: [user("hi")] },
      "stream_options.include_usage",
      /boolean/,
    );
    rejects({ temperature: 3, messages: [user("hi")] }, "temperature", /between 0 and 2/);
    rejects({ temperature: "hot", messages: [user("hi")] }, "temperature", /must be a number/);
    rejects({ max_tokens: 1.5, messages: [user("hi")] }, "max_tokens", /whole number/);
    rejects({ max_completion_tokens: 0, messages: [user("hi")] }, "max_completion_tokens", /between 1/);
  });

  test("rejects an unknown role and the deprecated function role", () => {
    rejects({ messages: [{ role: "robot", content: "x" }, user("hi")] }, "messages[0].role", /must be one of/);
    rejects({ messages: [{ content: "x" }, user("hi")] }, "messages[0].role", /must be one of/);
    rejects(
      { messages: [{ role: "function", name: "f", content: "x" }, user("hi")] },
      "messages[0].role",
      /deprecated.*use "tool"/,
    );
    rejects({ messages: ["hi"] }, "messages[0]", /must be an object/);
  });

  test("rejects a conversation whose last message is not from the user", () => {
    rejects(
      { messages: [user("hi"), { role: "assistant", content: "hello" }] },
      "messages[1].role",
      /last message must be from the user \(it is "assistant"\)/,
    );
    rejects({ messages: [{ role: "system", content: "x" }] }, "messages[0].role", /last message must be from the user/);
  });

  test("rejects audio and file parts as unsupported, naming the part", () => {
    rejects(
      { messages: [user([{ type: "input_audio", input_audio: { data: "", format: "wav" } }])] },
      "messages[0].content[0].type",
      /"input_audio" is not supported/,
    );
    rejects(
      {
        messages: [
          user([
            { type: "text", text: "see" },
            { type: "file", file: { file_id: "f" } },
          ]),
        ],
      },
      "messages[0].content[1].type",
      /"file" is not supported/,
    );
  });

  test("rejects malformed user content and image parts", () => {
    rejects({ messages: [{ role: "user" }] }, "messages[0].content", /content is required/);
    rejects({ messages: [user(5)] }, "messages[0].content", /string or an array/);
    rejects({ messages: [user([])] }, "messages[0].content", /must not be an empty array/);
    rejects({ messages: [user([{ type: "text" }])] }, "messages[0].content[0].text", /must be a string/);
    rejects({ messages: [user([{ type: "image_url", image_url: "x" }])] }, "messages[0].content[0].image_url", /url/);
    rejects(
      { messages: [user([{ type: "image_url", image_url: { url: "x", detail: "max" } }])] },
      "messages[0].content[0].image_url.detail",
      /auto, low, high/,
    );
  });

  test("rejects malformed assistant and tool messages", () => {
    rejects({ messages: [{ role: "assistant" }, user("hi")] }, "messages[0].content", /content or tool_calls/);
    rejects(
      { messages: [{ role: "assistant", content: "x", function_call: { name: "f" } }, user("hi")] },
      "messages[0].function_call",
      /deprecated/,
    );
    rejects(
      { messages: [{ role: "assistant", tool_calls: [{ id: "c", type: "custom", custom: {} }] }, user("hi")] },
      "messages[0].tool_calls[0].type",
      /"function"/,
    );
    rejects(
      {
        messages: [
          { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f" } }] },
          user("x"),
        ],
      },
      "messages[0].tool_calls[0].function",
      /string arguments/,
    );
    rejects({ messages: [{ role: "tool", content: "r" }, user("hi")] }, "messages[0].tool_call_id", /non-empty/);
    rejects(
      { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "x" } }] }, user("hi")] },
      "messages[0].content[0].type",
      /not allowed here; use text/,
    );
  });
});
