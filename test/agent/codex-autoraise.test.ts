import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { codexAutoraiseApplies, effectiveThreshold } from "../../src/agent/compression/codex-autoraise.js";
import { AUTORAISE_NOTICE_MARKER, noticeCodexAutoraise } from "../../src/runtime/codex-autoraise-notice.js";
import { createHarness } from "../helpers/agent-harness.js";
import { isSummaryRequest, withSummaries } from "./context-fixtures.js";

test("the autoraise applies to the capped model families on the Codex subscription route only", () => {
  for (const model of [
    "gpt-5.4",
    "gpt-5.4-mini",
    "gpt-5.5",
    "gpt-5.6-sol",
    "gpt-6-terra",
    "gpt-6-astra",
    "openai/gpt-5.5",
  ]) {
    assert.equal(codexAutoraiseApplies("openai-codex", model), true, model);
  }
  for (const model of ["gpt-5.2", "gpt-5.1-codex", "gpt-4o", "gpt-5.6-sol-900k", "gpt-6-astra-900k", "gpt-60"]) {
    assert.equal(codexAutoraiseApplies("openai-codex", model), false, model);
  }
  assert.equal(codexAutoraiseApplies("openai", "gpt-5.5"), false, "the direct API has the full window");
  assert.equal(codexAutoraiseApplies("openrouter", "gpt-6-astra"), false);
  assert.equal(effectiveThreshold(0.5, { provider: "openai-codex", model: "gpt-5.5" }), 0.85);
  assert.equal(effectiveThreshold(0.9, { provider: "openai-codex", model: "gpt-5.5" }), 0.9, "never lowered");
  assert.equal(effectiveThreshold(0.5, { provider: "openai-codex", model: "gpt-5.5" }, false), 0.5);
  assert.equal(effectiveThreshold(0.5, { provider: "openai", model: "gpt-5.5" }), 0.5);
});

/** About 120,000 tokens against a 200,000-token window: past 50% (and the 64K floor), short of 85%. */
const history = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
  content: `message ${i} ${"word ".repeat(8_000)}`,
}));

async function summariesFor(codexAutoraise: boolean): Promise<number> {
  const h = await createHarness(withSummaries([{ text: "answer" }]), {
    provider: "openai-codex",
    model: "gpt-5.5",
    apiMode: "chat_completions",
    contextLength: 200_000,
    compression: { threshold: 0.5, codexAutoraise },
  });
  try {
    const result = await h.agent.runConversation("next", { conversationHistory: history });
    assert.equal(result.finalResponse, "answer");
    return h.fake.requests.filter(isSummaryRequest).length;
  } finally {
    await h.close();
  }
}

test("on the Codex route a conversation past half its window is not compressed until 85%, unless the autoraise is off", async () => {
  assert.equal(await summariesFor(true), 0);
  assert.equal(await summariesFor(false), 1);
});

test("the autoraise is announced once per profile, naming the setting that turns it off", () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-autoraise-"));
  try {
    const notices: string[] = [];
    const settings = { threshold: 0.5, codex_gpt55_autoraise: true };
    noticeCodexAutoraise(home, settings, { provider: "openai", model: "gpt-5.5" }, (m) => notices.push(m));
    assert.equal(notices.length, 0, "not on another route");
    noticeCodexAutoraise(home, settings, { provider: "openai-codex", model: "gpt-5.5" }, (m) => notices.push(m));
    noticeCodexAutoraise(home, settings, { provider: "openai-codex", model: "gpt-5.5" }, (m) => notices.push(m));
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /85%.*hermes config set compression\.codex_gpt55_autoraise false/);
    assert.ok(existsSync(join(home, AUTORAISE_NOTICE_MARKER)));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
