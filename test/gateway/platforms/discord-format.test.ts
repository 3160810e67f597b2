import assert from "node:assert/strict";
import { test } from "node:test";
import { approvalMessage, parsePress, questionMessage } from "../../../src/gateway/adapters/discord/buttons.js";
import { toDiscordMarkdown } from "../../../src/gateway/adapters/discord/format.js";
import { judge, placeOf, rulesFrom } from "../../../src/gateway/adapters/discord/inbound.js";
import { DEFAULT_CONFIG } from "../../../src/state/config-defaults.js";

test("markdown: tables become aligned code blocks; what Discord renders passes through untouched", () => {
  const table = "| name | qty |\n|------|----:|\n| apple | 3 |\n| kiwi | 12 |";
  assert.equal(
    toDiscordMarkdown(`Stock:\n${table}\nDone.`),
    "Stock:\n```\nname  | qty\n------+----\napple | 3\nkiwi  | 12\n```\nDone.",
  );
  const plain = "# Title\n**bold** _it_ ~~no~~ `code`\n- item\n> quote\n[link](https://example.com)";
  assert.equal(toDiscordMarkdown(plain), plain);
  assert.equal(toDiscordMarkdown("#### Deep"), "**Deep**");
  assert.equal(toDiscordMarkdown("```\n| a | b |\n|---|---|\n```"), "```\n| a | b |\n|---|---|\n```");
});

test("buttons: four approval answers, questions capped at 25 choices, unknown ids ignored", () => {
  const approval = approvalMessage({ chatId: "1", command: "rm -rf ```/", reason: "deletes files" });
  assert.equal(approval.components[0]?.components.length, 4);
  assert.ok(!approval.content.includes("rm -rf ```/"), "a backtick fence in the command cannot close the block");
  assert.deepEqual(parsePress("hermes:ap:session"), {
    kind: "approval",
    text: "/approve session",
    label: "Allow for this session",
  });
  assert.equal(parsePress("hermes:ap:everything"), undefined);
  assert.equal(parsePress("someone-else:q:1"), undefined);
  const choices = Array.from({ length: 12 }, (_, i) => `choice ${i}`);
  assert.deepEqual(
    questionMessage({ chatId: "1", question: "?", choices }).components.map((row) => row.components.length),
    [5, 5, 2],
  );
  assert.throws(() => questionMessage({ chatId: "1", question: "?", choices: [...choices, ...choices, ...choices] }));
});

test("mention rules: DMs always, threads without a mention by default, channels only when mentioned", () => {
  const rules = rulesFrom(DEFAULT_CONFIG);
  const dm = placeOf({ id: "9", guildId: null, isThread: false, parentId: null });
  const channel = placeOf({ id: "5", guildId: "1", isThread: false, parentId: null });
  const thread = placeOf({ id: "6", guildId: "1", isThread: true, parentId: "5" });
  assert.deepEqual(thread, { chatId: "5", chatType: "thread", threadId: "6" });
  assert.equal(judge(dm, "hi", false, "42", rules).answer, true);
  assert.equal(judge(thread, "hi", false, "42", rules).answer, true);
  assert.equal(judge(channel, "hi", false, "42", rules).answer, false);
  assert.deepEqual(judge(channel, "<@42> hi <@!42>", true, "42", rules), {
    answer: true,
    text: "hi",
    startThread: true,
  });
  const strict = { ...rules, threadRequireMention: true };
  assert.equal(judge(thread, "hi", false, "42", strict).answer, false);
});
