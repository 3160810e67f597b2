import assert from "node:assert/strict";
import { test } from "node:test";
import { PROMPT_LIMITS, PromptContentError, promptInput } from "../../src/acp/prompt-content.js";
import { toolKind, toolLocations, toolTitle } from "../../src/acp/tool-kinds.js";
import { planFromTodoResult } from "../../src/acp/turn-updates.js";

const PNG = "iVBORw0KGgo=";

test("a text-only prompt becomes one string, with embedded text resources fenced and links named", () => {
  const input = promptInput([
    { type: "text", text: "look at these" },
    {
      type: "resource",
      resource: { uri: "file:///w/a.ts", mimeType: "text/x-typescript", text: "const a = 1;\n```\n" },
    },
    { type: "resource_link", uri: "file:///w/docs%20dir/b.md", name: "b.md", size: 12 },
  ]);
  assert.equal(typeof input, "string");
  assert.match(
    input as string,
    /^look at these\n\nContent of file:\/\/\/w\/a\.ts \(text\/x-typescript\):\n````\nconst a = 1;/,
  );
  assert.match(input as string, /\n````$/m);
  assert.match(input as string, /\[Attached: b\.md — \/w\/docs dir\/b\.md, 12 bytes;/);
});

test("images (and image blobs) become image parts beside the text", () => {
  const input = promptInput([
    { type: "text", text: "what is this?" },
    { type: "image", mimeType: "image/png", data: PNG },
    { type: "resource", resource: { uri: "file:///w/c.jpg", mimeType: "image/jpeg", blob: PNG } },
    { type: "resource", resource: { uri: "file:///w/d.bin", mimeType: "application/octet-stream", blob: "AAAA" } },
  ]);
  assert.ok(Array.isArray(input));
  assert.deepEqual(
    input.map((part) => part.type),
    ["text", "image_url", "image_url", "text"],
  );
  assert.equal(input[1]?.type === "image_url" && input[1].image_url.url, `data:image/png;base64,${PNG}`);
  assert.match(input[3]?.type === "text" ? input[3].text : "", /binary resource file:\/\/\/w\/d\.bin/);
});

test("hostile prompts are refused whole: bad image type, not base64, too large, too many, empty, audio", () => {
  const refuse = (blocks: Parameters<typeof promptInput>[0], pattern: RegExp) =>
    assert.throws(
      () => promptInput(blocks),
      (error: Error) => error instanceof PromptContentError && pattern.test(error.message),
    );
  refuse([{ type: "image", mimeType: "image/svg+xml", data: PNG }], /unsupported image type/);
  refuse([{ type: "image", mimeType: "image/png", data: "<script>" }], /not base64/);
  refuse(
    [{ type: "image", mimeType: "image/png", data: "A".repeat(PROMPT_LIMITS.imageBase64Chars + 4) }],
    /larger than/,
  );
  refuse(
    Array.from({ length: PROMPT_LIMITS.images + 1 }, () => ({
      type: "image" as const,
      mimeType: "image/png",
      data: PNG,
    })),
    /more than 16 images/,
  );
  refuse([{ type: "text", text: "x".repeat(PROMPT_LIMITS.textChars + 1) }], /longer than/);
  refuse([], /empty/);
  refuse([{ type: "audio", mimeType: "audio/wav", data: PNG }], /audio/);
});

test("tool names map to ACP kinds, titles and absolute locations", () => {
  assert.equal(toolKind("read_file"), "read");
  assert.equal(toolKind("write_file"), "edit");
  assert.equal(toolKind("patch"), "edit");
  assert.equal(toolKind("search_files"), "search");
  assert.equal(toolKind("terminal"), "execute");
  assert.equal(toolKind("todo"), "think");
  assert.equal(toolKind("web_extract"), "fetch");
  assert.equal(toolKind("browser_click"), "fetch");
  assert.equal(toolKind("mcp_x_y"), "other");
  assert.equal(toolTitle("terminal", { command: "npm   test" }, ""), "Run npm test");
  assert.deepEqual(toolLocations("read_file", { path: "src/a.ts", offset: 10 }, "/w"), [
    { path: "/w/src/a.ts", line: 10 },
  ]);
  assert.deepEqual(
    toolLocations(
      "patch",
      { mode: "patch", patch: "*** Begin Patch\n*** Update File: a.ts\n*** Add File: /abs/b.ts\n" },
      "/w",
    ),
    [{ path: "/w/a.ts" }, { path: "/abs/b.ts" }],
  );
});

test("the todo tool's result becomes plan entries; cancelled items are left out", () => {
  const entries = planFromTodoResult(
    JSON.stringify({
      todos: [
        { id: "1", content: "read", status: "completed" },
        { id: "2", content: "write", status: "in_progress" },
        { id: "3", content: "skip", status: "cancelled" },
        { id: "4", content: "test", status: "pending" },
      ],
    }),
  );
  assert.deepEqual(
    entries?.map((e) => `${e.content}:${e.status}`),
    ["read:completed", "write:in_progress", "test:pending"],
  );
  assert.equal(planFromTodoResult("not json"), undefined);
});
