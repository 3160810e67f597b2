import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests } from "../harness.js";

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

test("an image a user sends reaches the model as an image part; a file the reply names is uploaded", async () => {
  const outDir = tempDir("hermes-discord-out-");
  const report = join(outDir, "report.txt");
  writeFileSync(report, "the report\n");
  const d = await startDiscordGateway({
    config: "discord:\n  max_attachment_bytes: 1000\nagent:\n  image_input_mode: native\n",
    provider: { script: [{ text: `Here is the report.\nMEDIA:${report}` }] },
  });
  try {
    const picture = d.fake.attachment("cat.png", PNG, "image/png");
    const huge = d.fake.attachment("huge.bin", Buffer.alloc(5000, 1), "application/octet-stream");
    d.fake.userSays({ channel: "dm", user: d.alice, content: "look at this", attachments: [picture, huge] });
    const dm = d.fake.dmChannel(d.alice).id;
    const upload = await d.fake.waitForCall(
      (c) => c.method === "POST" && c.path === `/channels/${dm}/messages` && c.files.length > 0,
    );
    assert.deepEqual(
      upload.files.map((f) => [f.name, f.bytes]),
      [["report.txt", 11]],
    );
    await d.fake.waitForBotText(/Here is the report\./, dm);

    const [request] = modelRequests(d.gw.fake);
    const messages = (request?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
    const user = messages.findLast((m) => m.role === "user");
    assert.ok(Array.isArray(user?.content), "the user turn has parts");
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    const image = parts.find((p) => p.type === "image_url");
    assert.equal(image?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
    const text = parts.find((p) => p.type === "text")?.text ?? "";
    assert.match(text, /look at this/);
    assert.match(text, /huge\.bin \(5000 bytes\) was not downloaded: larger than 1000 bytes/);
  } finally {
    await d.close();
  }
});

test("a clarify question shows its choices as buttons and the pressed choice is the answer", async () => {
  const d = await startDiscordGateway({
    provider: {
      script: [
        { toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "blue"] } }] },
      ],
      fallback: (req) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
    },
  });
  try {
    d.fake.userSays({ channel: "dm", user: d.alice, content: "paint it" });
    const dm = d.fake.dmChannel(d.alice).id;
    const prompt = await d.fake.waitFor(
      () => d.fake.botMessages(dm).find((m) => m.components.length > 0),
      20_000,
      "the question",
    );
    assert.match(prompt.content, /Which colour\?/);
    const buttons = prompt.components.flatMap((row) => row.components) as Array<{ label: string; custom_id: string }>;
    assert.deepEqual(
      buttons.map((b) => b.label),
      ["red", "blue"],
    );
    d.fake.press(prompt.id, buttons[1]?.custom_id as string, d.alice);
    assert.match((await d.fake.waitForBotText(/^result:/, dm)).content, /blue/);
    assert.deepEqual(prompt.components, [], "the buttons are gone after the press");
    assert.equal(modelRequests(d.gw.fake).length, 2, "the press answered the question, not a new turn");
  } finally {
    await d.close();
  }
});
