/**
 * A real gateway whose Slack adapter (the real SDKs) talks to a fake Slack on loopback, plus
 * helpers to play a Slack user: a DM, a channel mention, a thread reply, a button press.
 */

import { SlackAdapter, type SlackAdapterOptions } from "../../../src/gateway/adapters/slack/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { FAKE_BOT, type FakeSlack, startFakeSlack } from "./server.js";
import { type FakeMessage, nextTs } from "./web-api.js";

export const ALICE = "U0ALICE01";
export const DM = "D0ALICE01";
export const CHANNEL = "C0GENERAL";

export interface SlackGateway {
  gw: GatewayHarness;
  slack: FakeSlack;
  adapters: SlackAdapter[];
  close(): Promise<void>;
}

export async function startSlackGateway(
  options: GatewayHarnessOptions & { adapter?: Partial<SlackAdapterOptions> } = {},
): Promise<SlackGateway> {
  const slack = await startFakeSlack();
  const adapters: SlackAdapter[] = [];
  const home = options.home ?? tempDir("hermes-slack-");
  let gw: GatewayHarness;
  try {
    gw = await startGateway({
      ...options,
      home,
      env: options.env ?? { TEST_ALLOWED_USERS: "user-1", SLACK_ALLOWED_USERS: ALICE },
      extraAdapters: () => {
        const adapter = new SlackAdapter({
          botToken: slack.state.tokens.bot,
          appToken: slack.state.tokens.app,
          apiUrl: slack.apiUrl,
          home,
          rules: { requireMention: true, freeResponseChannels: new Set(), allowedChannels: new Set() },
          log: () => undefined,
          pingTimeoutMs: 3_000,
          ...options.adapter,
        });
        adapters.push(adapter);
        return [adapter];
      },
    });
  } catch (error) {
    await slack.close();
    throw error;
  }
  await slack.waitFor(() => slack.connected, "the Socket Mode connection");
  return {
    gw,
    slack,
    adapters,
    async close() {
      await gw.close();
      await slack.close();
    },
  };
}

/** A direct message from `user`; returns the message's ts. */
export function dm(slack: FakeSlack, text: string, extra: Record<string, unknown> = {}, user = ALICE): string {
  const ts = nextTs();
  slack.sendEvent({
    type: "message",
    channel: DM,
    channel_type: "im",
    user,
    text,
    ts,
    client_msg_id: `c-${ts}`,
    team: "T0FAKE001",
    ...extra,
  });
  return ts;
}

/** A channel message that mentions the app, as Slack delivers it: an `app_mention` and a `message`. */
export function mention(slack: FakeSlack, text: string, threadTs?: string, user = ALICE): string {
  const ts = nextTs();
  const event = {
    channel: CHANNEL,
    user,
    text: `<@${FAKE_BOT.userId}> ${text}`,
    ts,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
  slack.sendEvent({ type: "app_mention", ...event });
  slack.sendEvent({ type: "message", channel_type: "channel", ...event });
  return ts;
}

/** A plain channel message (no mention), optionally inside a thread. */
export function channelMessage(slack: FakeSlack, text: string, threadTs?: string, user = ALICE): string {
  const ts = nextTs();
  slack.sendEvent({
    type: "message",
    channel_type: "channel",
    channel: CHANNEL,
    user,
    text,
    ts,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
  return ts;
}

/** A press on a button of a message the app posted, as a `block_actions` payload. */
export function press(
  slack: FakeSlack,
  prompt: { channel: string; ts: string; threadTs?: string; blocks?: unknown },
  actionId: string,
  value: string,
  user = ALICE,
): string {
  const trigger = `${Date.now()}.${Math.floor(Math.random() * 1e9)}`;
  slack.sendInteractive({
    type: "block_actions",
    user: { id: user, username: "alice", team_id: "T0FAKE001" },
    api_app_id: FAKE_BOT.appId,
    token: "verification-token",
    container: { type: "message", message_ts: prompt.ts, channel_id: prompt.channel, is_ephemeral: false },
    trigger_id: trigger,
    team: { id: "T0FAKE001", domain: "fake" },
    channel: { id: prompt.channel, name: "directmessage" },
    message: {
      type: "message",
      user: FAKE_BOT.userId,
      bot_id: FAKE_BOT.botId,
      ts: prompt.ts,
      ...(prompt.threadTs ? { thread_ts: prompt.threadTs } : {}),
      blocks: prompt.blocks,
    },
    actions: [
      {
        action_id: actionId,
        block_id: "approval",
        text: { type: "plain_text", text: value },
        value,
        type: "button",
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  });
  return trigger;
}

/** The messages of a channel as they read now, streaming previews left out. */
export function finished(slack: FakeSlack, channel: string): FakeMessage[] {
  return slack.state.visible(channel).filter((m) => !m.text.endsWith(STREAM_CURSOR));
}

/** Polls a condition the fake cannot see (gateway logs, adapter state) until it holds. */
export async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
