import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openRuntime } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { tempDir } from "../state/temp-dir.js";

const FEW_SHOT = [
  { role: "user", content: "What is 2+2?" },
  { role: "assistant", content: "4. (Answer in one line.)" },
];

test("prefill messages go after the system prompt in every request and are never stored", async () => {
  const fake = await startFakeProvider({ fallback: { text: "fine" } });
  const home = tempDir("hermes-prefill-");
  writeFileSync(join(home, "few-shot.json"), JSON.stringify(FEW_SHOT));
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\nprefill_messages_file: few-shot.json\n`,
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const agent = runtime.createAgent();
    await agent.runConversation("first question");
    await agent.runConversation("second question");
    const shapes = fake.requests
      .filter((req) => Array.isArray(req.body?.messages))
      .map((req) =>
        (req.body.messages as Array<{ role: string; content: string }>).map((m) =>
          m.role === "system" ? "system" : `${m.role}: ${m.content}`,
        ),
      );
    assert.deepEqual(shapes[0], [
      "system",
      "user: What is 2+2?",
      "assistant: 4. (Answer in one line.)",
      "user: first question",
    ]);
    assert.deepEqual(shapes[1]?.slice(0, 3), ["system", "user: What is 2+2?", "assistant: 4. (Answer in one line.)"]);
    assert.deepEqual(shapes[1]?.slice(3), ["user: first question", "assistant: fine", "user: second question"]);
    const stored = (await runtime.store.getMessages(agent.sessionId)).map((m) => m.content);
    assert.deepEqual(stored, ["first question", "fine", "second question", "fine"]);
  } finally {
    await runtime.close();
    await fake.close();
  }
});

test("HERMES_PREFILL_MESSAGES_FILE wins over config.yaml; a bad file is reported and ignored", async () => {
  const home = tempDir("hermes-prefill-");
  writeFileSync(join(home, "from-env.json"), JSON.stringify([{ role: "user", content: "from the environment" }]));
  writeFileSync(join(home, "broken.json"), '[{"role": "tool", "content": "x"}]');
  const base = "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n";
  const open = async (config: string, env?: string) => {
    writeFileSync(join(home, "config.yaml"), `${base}${config}`);
    const notices: string[] = [];
    const saved = process.env.HERMES_PREFILL_MESSAGES_FILE;
    if (env) process.env.HERMES_PREFILL_MESSAGES_FILE = env;
    try {
      const runtime = await openRuntime({
        home,
        localServers: false,
        skipDotEnv: true,
        callbacks: { onNotice: (message) => notices.push(message) },
      });
      const prefill = runtime.createAgent().options.prefillMessages;
      await runtime.close();
      return { prefill, notices };
    } finally {
      if (saved === undefined) delete process.env.HERMES_PREFILL_MESSAGES_FILE;
      else process.env.HERMES_PREFILL_MESSAGES_FILE = saved;
    }
  };
  const fromEnv = await open("prefill_messages_file: broken.json\n", "from-env.json");
  assert.deepEqual(fromEnv.prefill, [{ role: "user", content: "from the environment" }]);
  const broken = await open("prefill_messages_file: broken.json\n");
  assert.equal(broken.prefill, undefined);
  assert.ok(
    broken.notices.some((n) => /broken\.json is not used: entry 0 has role "tool"/.test(n)),
    broken.notices.join("\n"),
  );
  const missing = await open("prefill_messages_file: nowhere.json\n");
  assert.ok(missing.notices.some((n) => /nowhere\.json is not used: it does not exist/.test(n)));
});
