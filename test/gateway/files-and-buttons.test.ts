import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, startGateway } from "./harness.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

test("an image a user sends reaches the model as an image part; another file as a note naming its path", async () => {
  const dir = tempDir("hermes-gw-in-");
  const image = join(dir, "cat.png");
  const doc = join(dir, "notes.txt");
  writeFileSync(image, PNG);
  writeFileSync(doc, "hello");
  const gw = await startGateway({
    provider: { script: [{ text: "a cat" }] },
    config: "agent:\n  image_input_mode: native\n",
  });
  try {
    gw.adapter.inject({
      messageId: "1",
      text: "what is this?",
      attachments: [
        { kind: "image", url: image, mimeType: "image/png" },
        { kind: "file", url: doc, name: "notes.txt", bytes: 5 },
      ],
    });
    await gw.adapter.waitForText(/a cat/);
    const messages = modelRequests(gw.fake)[0]?.body?.messages as Array<{ role: string; content: unknown }>;
    const user = messages.filter((m) => m.role === "user").at(-1);
    assert.ok(Array.isArray(user?.content), "the user turn is a list of parts");
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    assert.match(parts[0]?.text ?? "", /what is this\?/);
    assert.match(parts[0]?.text ?? "", new RegExp(`notes\\.txt.*saved at ${doc}`));
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
  } finally {
    await gw.close();
  }
});

test("a reply naming local files sends them as a file and an image, and leaves their lines out of the text", async () => {
  const dir = tempDir("hermes-gw-out-");
  const report = join(dir, "report.txt");
  const chart = join(dir, "chart.png");
  writeFileSync(report, "numbers");
  writeFileSync(chart, PNG);
  const gw = await startGateway({
    provider: {
      script: [{ text: "Here you are.\nMEDIA:" + report + "\n![the chart](" + chart + ")" }],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "send the report" });
    await gw.adapter.waitFor(() => gw.adapter.files.length === 2);
    assert.deepEqual(
      gw.adapter.files.map((f) => [f.path, f.image]),
      [
        [report, false],
        [chart, true],
      ],
    );
    assert.deepEqual(gw.adapter.texts(), ["Here you are."]);
  } finally {
    await gw.close();
  }
});

test("a reply naming the agent's .env keeps the line as text and sends no file", async () => {
  const home = tempDir("hermes-gw-secret-");
  const secret = join(home, ".env");
  writeFileSync(secret, "OPENAI_API_KEY=sk-test-secret\n");
  const again = await startGateway({ home, provider: { script: [{ text: `MEDIA:${secret}` }] } });
  const previous = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  try {
    again.adapter.inject({ messageId: "1", text: "send me your keys" });
    await again.adapter.waitForText(/MEDIA:/);
    assert.equal(again.adapter.files.length, 0);
    assert.ok(again.logs.some((line) => /not sending a file.*secrets/.test(line)));
  } finally {
    if (previous === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = previous;
    await again.close();
  }
});

/** A model that asks a clarify question, then answers with what the tool returned. */
function clarifyThenEcho(question: string, choices: string[]) {
  return {
    script: [{ toolCalls: [{ name: "clarify", arguments: { question, choices } }] }],
    fallback: (req: { body?: Record<string, unknown> }) => {
      const messages = req.body?.messages as Array<{ role: string; content: unknown }>;
      return { text: `picked: ${String(messages.at(-1)?.content)}` };
    },
  };
}

test("a clarify question with choices is shown as buttons where the platform has them", async () => {
  const gw = await startGateway({
    adapter: () => new TestAdapter({ buttons: true }),
    provider: clarifyThenEcho("Which colour?", ["red", "blue"]),
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "paint it" });
    await gw.adapter.waitFor(() => gw.adapter.prompts.length === 1);
    assert.deepEqual(gw.adapter.prompts[0], {
      chatId: "chat-1",
      threadId: null,
      question: "Which colour?",
      choices: ["red", "blue"],
    });
    assert.ok(!gw.adapter.texts().some((text) => /1\. red/.test(text)), "no numbered list when buttons were shown");
    gw.adapter.inject({ messageId: "2", text: "blue" });
    const reply = await gw.adapter.waitForText(/^picked:/);
    assert.match(reply, /blue/);
  } finally {
    await gw.close();
  }
});

test("a question whose choices are numbers takes an answer that is one of them as itself, not as a position", async () => {
  const gw = await startGateway({
    adapter: () => new TestAdapter({ buttons: true }),
    provider: clarifyThenEcho("How many?", ["2", "1", "7"]),
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "count" });
    await gw.adapter.waitFor(() => gw.adapter.prompts.length === 1);
    gw.adapter.inject({ messageId: "2", text: "1" });
    assert.match(await gw.adapter.waitForText(/^picked:/), /"user_response":"1"/);
  } finally {
    await gw.close();
  }
});

test("when the platform's buttons fail, the question is asked in text with numbered choices, and a number picks one", async () => {
  const gw = await startGateway({
    adapter: () => {
      const adapter = new TestAdapter({ buttons: true });
      adapter.askQuestion = () => Promise.reject(new Error("buttons are down"));
      return adapter;
    },
    provider: clarifyThenEcho("Which colour?", ["red", "blue"]),
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "paint it" });
    assert.match(await gw.adapter.waitForText(/Which colour\?/), /1\. red\n2\. blue/);
    gw.adapter.inject({ messageId: "2", text: "2" });
    assert.match(await gw.adapter.waitForText(/^picked:/), /"user_response":"blue"/);
    assert.ok(gw.logs.some((line) => /question buttons failed \(buttons are down\); asking in text/.test(line)));
  } finally {
    await gw.close();
  }
});

test("gateway.strict with media_delivery_allow_dirs: a reply sends the allowed file and keeps the other's line", async () => {
  const shared = tempDir("hermes-gw-shared-");
  const allowed = join(shared, "report.txt");
  writeFileSync(allowed, "numbers");
  const other = join(tempDir("hermes-gw-other-"), "diary.txt");
  writeFileSync(other, "private");
  const gw = await startGateway({
    config: `gateway:\n  strict: true\n  trust_recent_files: false\n  media_delivery_allow_dirs: ${JSON.stringify(shared)}\n`,
    provider: { script: [{ text: `Both.\nMEDIA:${allowed}\nMEDIA:${other}` }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "send both" });
    await gw.adapter.waitForText(/MEDIA:/);
    await gw.adapter.waitFor(() => gw.adapter.files.length === 1);
    assert.deepEqual(
      gw.adapter.files.map((f) => f.path),
      [allowed],
    );
    assert.deepEqual(gw.adapter.texts(), [`Both.\n\nMEDIA:${other}`]);
    assert.ok(gw.logs.some((line) => /not sending a file.*gateway\.strict/.test(line)));
  } finally {
    await gw.close();
  }
});
