import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bodyOf, dm, finished, startMatrixGateway } from "../../fakes/matrix/gateway.js";
import type { FakeMatrix } from "../../fakes/matrix/server.js";
import type { FakeEvent, FakeRoom, FakeUser } from "../../fakes/matrix/state.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";

/** The keys the bot reacted to `event` with, in order. */
function offered(mx: FakeMatrix, event: FakeEvent): string[] {
  return mx.state.stream
    .filter((e) => e.type === "m.reaction" && e.sender === mx.bot.userId)
    .map((e) => e.content["m.relates_to"] as { event_id: string; key: string })
    .filter((relation) => relation.event_id === event.event_id)
    .map((relation) => relation.key);
}

function react(mx: FakeMatrix, user: FakeUser, room: FakeRoom, event: FakeEvent, key: string): void {
  mx.userSends(user, room, "m.reaction", {
    "m.relates_to": { rel_type: "m.annotation", event_id: event.event_id, key },
  });
}

/** The prompt holding `marker`, once the bot has offered all `options` reactions on it. */
async function promptIn(mx: FakeMatrix, room: FakeRoom, marker: string, options: number): Promise<FakeEvent> {
  await mx.waitFor(
    () => mx.state.visible(room.id).some((e) => bodyOf(e).includes(marker) && offered(mx, e).length === options),
    "the prompt with its reactions",
  );
  return mx.state.visible(room.id).find((e) => bodyOf(e).includes(marker))!;
}

test("an approval is offered as reactions, and the user's 🔁 approves it", async () => {
  const dir = join(tempDir("hermes-mx-victim-"), "victim");
  mkdirSync(dir, { recursive: true });
  const { mx, world, close } = await startMatrixGateway({
    config: 'sandbox:\n  mode: "off"\n',
    provider: {
      script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] }],
      fallback: (req) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
    },
  });
  try {
    dm(mx, world, "clean up");
    const prompt = await promptIn(mx, world.dm, "needs your approval", 4);
    assert.deepEqual(offered(mx, prompt), ["✅", "🔁", "♾️", "❌"]);
    assert.match(bodyOf(prompt), /rm -r/);
    assert.match(bodyOf(prompt), /React with ✅ allow once · 🔁 for this session · ♾️ always · ❌ deny/);
    react(mx, world.alice, world.dm, prompt, "🔁");
    await mx.waitFor(() => finished(mx, world.dm).some((e) => bodyOf(e).startsWith("result:")), "the command's result");
    assert.equal(existsSync(dir), false, "the approved command ran");
  } finally {
    await close();
  }
});

test("a clarifying question's choices are numbered reactions; picking one answers with its text", async () => {
  const { mx, world, gw, close } = await startMatrixGateway({
    provider: {
      script: [
        {
          toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "green", "blue"] } }],
        },
      ],
      fallback: (req) => ({ text: `picked: ${lastToolResults(req)[0] ?? ""}` }),
    },
  });
  try {
    dm(mx, world, "paint it");
    const prompt = await promptIn(mx, world.dm, "Which colour?", 3);
    assert.deepEqual(offered(mx, prompt), ["1️⃣", "2️⃣", "3️⃣"]);
    // A reaction to anything but the open prompt answers nothing (else the answer would be red).
    react(mx, world.alice, world.dm, { ...prompt, event_id: "$not-a-prompt" }, "1️⃣");
    react(mx, world.alice, world.dm, prompt, "2️⃣");
    await mx.waitFor(() => finished(mx, world.dm).some((e) => bodyOf(e).startsWith("picked:")), "the answer");
    const answer = finished(mx, world.dm).find((e) => bodyOf(e).startsWith("picked:"))!;
    assert.match(bodyOf(answer), /green/);
    assert.equal(gw.fake.requests.filter((r) => r.method === "POST").length, 2, "one question, one answer");
  } finally {
    await close();
  }
});
