import assert from "node:assert/strict";
import { test } from "node:test";
import { answeredBlocks, approvalMessage, pressedAnswer } from "../../../src/gateway/adapters/slack/blocks.js";
import { judgeEvent, type SlackChannelRules } from "../../../src/gateway/adapters/slack/inbound.js";
import { markdownToMrkdwn } from "../../../src/gateway/adapters/slack/mrkdwn.js";

test("markdown emphasis becomes mrkdwn: **bold** to *bold*, *italic* to _italic_, ~~strike~~ to ~strike~", () => {
  assert.equal(markdownToMrkdwn("**bold** and *italic* and _also_ ~~gone~~"), "*bold* and _italic_ and _also_ ~gone~");
  assert.equal(markdownToMrkdwn("__bold__ but snake_case_name stays"), "*bold* but snake_case_name stays");
  assert.equal(markdownToMrkdwn("2 * 3 * 4 is not italic"), "2 * 3 * 4 is not italic");
  assert.equal(markdownToMrkdwn("*x*"), "_x_");
});

test("&, < and > are escaped everywhere, code included, and code keeps its markup characters", () => {
  assert.equal(markdownToMrkdwn("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
  assert.equal(markdownToMrkdwn("run `a<b> **not bold**` now"), "run `a&lt;b&gt; **not bold**` now");
  assert.equal(markdownToMrkdwn("```ts\nif (a < b && **c**) {}\n```"), "```\nif (a &lt; b &amp;&amp; **c**) {}\n```");
  // A user cannot smuggle a Slack control sequence (a broadcast mention) through the reply.
  assert.equal(markdownToMrkdwn("<!channel> hi"), "&lt;!channel&gt; hi");
});

test("links become <url|text>, bare autolinks <url>, and underscores in URLs are left alone", () => {
  assert.equal(
    markdownToMrkdwn("see [the docs](https://x.test/a_b_c?q=1&r=2) or <https://y.test/>"),
    "see <https://x.test/a_b_c?q=1&amp;r=2|the docs> or <https://y.test/>",
  );
  assert.equal(markdownToMrkdwn("![chart](https://x.test/c.png)"), "<https://x.test/c.png|chart>");
});

test("headings become bold lines, bullets become •, quotes keep their marker", () => {
  assert.equal(markdownToMrkdwn("## Plan for **today**"), "*Plan for today*");
  assert.equal(markdownToMrkdwn("- one\n  * two\n+ three"), "• one\n  • two\n• three");
  assert.equal(markdownToMrkdwn("> careful **now**"), "> careful *now*");
});

test("a table becomes a code block so its columns stay aligned", () => {
  const table = "| name | qty |\n|------|----:|\n| a<b  | 1   |";
  assert.equal(
    markdownToMrkdwn(`Totals:\n${table}\nDone.`),
    "Totals:\n```\n| name | qty |\n|------|----:|\n| a&lt;b  | 1   |\n```\nDone.",
  );
});

const rules = (overrides: Partial<SlackChannelRules> = {}): SlackChannelRules => ({
  requireMention: true,
  freeResponseChannels: new Set(),
  allowedChannels: new Set(),
  ...overrides,
});
const judge = (event: Record<string, unknown>, channelRules = rules(), active: string[] = []) =>
  judgeEvent(event, { botUserId: "U0BOT0001", rules: channelRules, activeThreads: new Set(active) });

test("the mention is stripped and Slack's escapes are undone in what the agent reads", () => {
  const verdict = judge({
    type: "app_mention",
    channel: "C0CHAN0001",
    user: "U0USER0001",
    text: "<@U0BOT0001> is 1 &lt; 2 &amp;&amp; 3 &gt; 2?",
    ts: "1700000000.000001",
  });
  assert.ok(verdict.accepted);
  assert.equal(verdict.message.text, "is 1 < 2 && 3 > 2?");
  assert.equal(verdict.message.threadId, "1700000000.000001", "a top-level mention starts its own thread");
});

test("channel messages: mention required by default; require_mention false or an active thread lets them in", () => {
  const plain = { type: "message", channel: "C0CHAN0001", channel_type: "channel", user: "U0USER0001", text: "hi" };
  assert.equal(judge({ ...plain, ts: "1.1" }).accepted, false);
  assert.equal(judge({ ...plain, ts: "1.2" }, rules({ requireMention: false })).accepted, true);
  assert.equal(judge({ ...plain, ts: "1.3", thread_ts: "1.0" }, rules(), ["C0CHAN0001:1.0"]).accepted, true);
  assert.equal(judge({ ...plain, ts: "1.4", thread_ts: "1.9" }, rules(), ["C0CHAN0001:1.0"]).accepted, false);
  const group = judge(
    { ...plain, channel: "G0PRIV0001", channel_type: "group", ts: "1.5" },
    rules({ requireMention: false }),
  );
  assert.ok(group.accepted && group.message.chatType === "group");
});

test("malformed events (no user, a bad ts, an odd channel id) are dropped", () => {
  const base = { type: "message", channel: "D0DM000001", channel_type: "im", user: "U0USER0001", text: "x", ts: "1.1" };
  assert.equal(judge(base).accepted, true);
  assert.equal(judge({ ...base, user: undefined }).accepted, false);
  assert.equal(judge({ ...base, ts: "not-a-ts" }).accepted, false);
  assert.equal(judge({ ...base, channel: "../../etc" }).accepted, false);
  assert.equal(judge({ ...base, subtype: "channel_join" }).accepted, false);
});

test("approval buttons map back to the core's commands; unknown actions map to nothing", () => {
  const { blocks } = approvalMessage({ chatId: "D1", command: "rm -rf <dir> & more", reason: "deletes files" });
  assert.match(JSON.stringify(blocks), /rm -rf &lt;dir&gt; &amp; more/);
  assert.deepEqual(pressedAnswer({ action_id: "ap:session" }), {
    answer: "/approve session",
    label: "Allow for this session",
  });
  assert.deepEqual(pressedAnswer({ action_id: "ap:deny" })?.answer, "/deny");
  assert.equal(pressedAnswer({ action_id: "other", value: "/approve" }), undefined);
  const answered = answeredBlocks(blocks, "Deny", "U0USER0001");
  assert.ok(!answered.blocks.some((block) => block.type === "actions"));
});
