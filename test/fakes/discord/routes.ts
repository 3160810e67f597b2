/**
 * The REST endpoints the fake answers, with Discord's status codes: 200 with the object, 204 for
 * typing, reactions, deletes and interaction callbacks, 404 `{ code: 10003 | 10008 }` for unknown
 * channels and messages, 400 when a message would be empty or too long. Reading a channel's
 * history answers as Discord does when permissions are missing: 403 Missing Access without View
 * Channel, an empty list without Read Message History.
 */
import type { RecordedCall, RestReply, RestRouter } from "./rest.js";
import type { FakeDiscord } from "./server.js";
import { channelPayload, type FakeMessage, memberPayload, messagePayload, snowflake, userPayload } from "./state.js";

const ID = "(\\d+)";
const MAX_CONTENT = 2000;

const unknownChannel: RestReply = { status: 404, body: { message: "Unknown Channel", code: 10003 } };
const unknownMessage: RestReply = { status: 404, body: { message: "Unknown Message", code: 10008 } };
const noContent: RestReply = { status: 204 };

function route(pattern: string): RegExp {
  return new RegExp(`^${pattern}$`);
}

export function installRoutes(fake: FakeDiscord, router: RestRouter): void {
  router.on("GET", route("/gateway/bot"), () => ({
    status: 200,
    body: {
      url: fake.gatewayUrl,
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
    },
  }));
  router.on("GET", route("/gateway"), () => ({ status: 200, body: { url: fake.gatewayUrl } }), false);
  router.on("GET", route("/users/@me"), () => ({
    status: 200,
    body: { id: fake.bot.id, username: fake.bot.username, discriminator: "0", bot: true, avatar: null },
  }));
  router.on("POST", route("/users/@me/channels"), (call) => {
    const recipient = String(call.body?.recipient_id ?? "");
    if (!/^\d+$/.test(recipient)) return { status: 400, body: { message: "Invalid Form Body", code: 50035 } };
    return { status: 200, body: channelPayload(fake.dmChannel({ id: recipient, username: `user-${recipient}` })) };
  });
  router.on("GET", route(`/channels/${ID}`), (_call, [id]) => {
    const channel = fake.channels.get(id as string);
    return channel ? { status: 200, body: channelPayload(channel) } : unknownChannel;
  });
  router.on("POST", route(`/channels/${ID}/messages`), (call, [id]) => postMessage(fake, call, id as string));
  router.on("GET", route(`/channels/${ID}/messages`), (call, [id]) => channelHistory(fake, call, id as string));
  router.on("GET", route(`/guilds/${ID}/members/${ID}`), (_call, [guildId, userId]) => {
    if (guildId !== fake.guildId) return { status: 404, body: { message: "Unknown Guild", code: 10004 } };
    const member = fake.members.get(userId as string);
    if (!member) return { status: 404, body: { message: "Unknown Member", code: 10007 } };
    return {
      status: 200,
      body: {
        ...memberPayload(member.roles),
        user: userPayload(member.user),
        nick: null,
        avatar: null,
        premium_since: null,
        pending: false,
      },
    };
  });
  router.on("PATCH", route(`/channels/${ID}/messages/${ID}`), (call, [channelId, messageId]) => {
    const message = findMessage(fake, channelId as string, messageId as string);
    if (!message) return unknownMessage;
    if (typeof call.body?.content === "string") {
      if (call.body.content.length > MAX_CONTENT) return tooLong();
      message.content = call.body.content;
      message.edits.push(call.body.content);
    }
    if (Array.isArray(call.body?.components)) message.components = call.body.components;
    fake.changed();
    return { status: 200, body: messagePayload(message, fake.channels.get(message.channelId)) };
  });
  router.on("DELETE", route(`/channels/${ID}/messages/${ID}`), (_call, [channelId, messageId]) => {
    const message = findMessage(fake, channelId as string, messageId as string);
    if (!message) return unknownMessage;
    message.deleted = true;
    fake.changed();
    return noContent;
  });
  router.on("POST", route(`/channels/${ID}/typing`), (_call, [id]) =>
    fake.channels.has(id as string) ? noContent : unknownChannel,
  );
  for (const method of ["PUT", "DELETE"]) {
    router.on(method, route(`/channels/${ID}/messages/${ID}/reactions/([^/]+)/@me`), (_c, [cid, mid, emoji]) => {
      const message = findMessage(fake, cid as string, mid as string);
      if (!message) return unknownMessage;
      if (method === "PUT") message.reactions.add(emoji as string);
      else message.reactions.delete(emoji as string);
      fake.changed();
      return noContent;
    });
  }
  router.on("POST", route(`/channels/${ID}/messages/${ID}/threads`), (call, [channelId, messageId]) => {
    const parent = fake.channels.get(channelId as string);
    if (parent?.type !== 0) return unknownChannel;
    if (!findMessage(fake, parent.id, messageId as string)) return unknownMessage;
    const name = String(call.body?.name ?? "").slice(0, 100);
    if (!name) return { status: 400, body: { message: "Invalid Form Body", code: 50035 } };
    // A thread started from a message takes that message's id.
    const thread = { id: messageId as string, type: 11 as const, name, guildId: parent.guildId, parentId: parent.id };
    fake.channels.set(thread.id, thread);
    fake.gateway.dispatch("THREAD_CREATE", { ...channelPayload(thread), newly_created: true });
    return { status: 201, body: channelPayload(thread) };
  });
  router.on(
    "POST",
    route(`/interactions/${ID}/([^/]+)/callback`),
    (call) => {
      const messageId = call.body?.type === 7 ? findInteractionMessage(fake, call) : undefined;
      if (messageId) {
        const message = fake.messages.get(messageId);
        if (message && typeof call.body.data?.content === "string") {
          message.content = call.body.data.content;
          message.edits.push(message.content);
        }
        if (message && Array.isArray(call.body.data?.components)) message.components = call.body.data.components;
        fake.changed();
      }
      return noContent;
    },
    false,
  );
  router.on(
    "GET",
    /^\/attachments\/.+$/,
    (call) => {
      const file = fake.cdn.get(call.path);
      return file ? { status: 200, raw: file } : { status: 404, body: { message: "Not Found" } };
    },
    false,
  );
}

function tooLong(): RestReply {
  return {
    status: 400,
    body: {
      message: "Invalid Form Body",
      code: 50035,
      errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
    },
  };
}

function findMessage(fake: FakeDiscord, channelId: string, messageId: string): FakeMessage | undefined {
  const message = fake.messages.get(messageId);
  return message && message.channelId === channelId && !message.deleted ? message : undefined;
}

/** The interaction an UPDATE_MESSAGE callback answers, found from the press the fake dispatched. */
function findInteractionMessage(fake: FakeDiscord, call: RecordedCall): string | undefined {
  const interactionId = call.path.split("/")[2];
  return fake.pressedMessages.get(interactionId ?? "");
}

/** GET /channels/{id}/messages with `before` and `limit` (1–100, default 50): newest first. */
function channelHistory(fake: FakeDiscord, call: RecordedCall, channelId: string): RestReply {
  const channel = fake.channels.get(channelId);
  if (!channel) return unknownChannel;
  const access = fake.channelAccess.get(channelId);
  if (access === "no-view") return { status: 403, body: { message: "Missing Access", code: 50001 } };
  const query = new URLSearchParams(call.query);
  const limit = Number(query.get("limit") ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    return {
      status: 400,
      body: {
        message: "Invalid Form Body",
        code: 50035,
        errors: {
          limit: { _errors: [{ code: "NUMBER_TYPE_MAX", message: "int value should be less than or equal to 100." }] },
        },
      },
    };
  }
  if (access === "no-history") return { status: 200, body: [] };
  const before = query.get("before");
  const page = [...fake.messages.values()]
    .filter((m) => m.channelId === channelId && !m.deleted && (!before || BigInt(m.id) < BigInt(before)))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1))
    .slice(0, limit);
  return { status: 200, body: page.map((m) => messagePayload(m, channel)) };
}

function postMessage(fake: FakeDiscord, call: RecordedCall, channelId: string): RestReply {
  const channel = fake.channels.get(channelId);
  if (!channel) return unknownChannel;
  const body = call.body ?? {};
  const content = typeof body.content === "string" ? body.content : "";
  if (content.length > MAX_CONTENT) return tooLong();
  if (!content && call.files.length === 0 && !(body.components?.length > 0)) {
    return { status: 400, body: { message: "Cannot send an empty message", code: 50006 } };
  }
  const nonce = typeof body.nonce === "string" ? body.nonce : undefined;
  if (nonce && body.enforce_nonce) {
    const earlier = [...fake.messages.values()].find((m) => m.channelId === channelId && m.nonce === nonce);
    if (earlier) return { status: 200, body: messagePayload(earlier, channel) };
  }
  const replyTo = body.message_reference?.message_id;
  if (replyTo && !fake.messages.has(replyTo) && body.message_reference?.fail_if_not_exists !== false) {
    return { status: 400, body: { message: "Invalid Form Body", code: 50035 } };
  }
  const message = fake.store({
    channelId,
    author: fake.bot,
    content,
    components: Array.isArray(body.components) ? body.components : [],
    attachments: call.files.map((file) => ({
      id: snowflake(),
      filename: file.name,
      size: file.bytes,
      contentType: file.type,
      url: `${fake.url}/attachments/${channelId}/${encodeURIComponent(file.name)}`,
    })),
    ...(replyTo ? { replyTo } : {}),
    ...(nonce ? { nonce } : {}),
  });
  const payload = messagePayload(message, channel);
  // Discord echoes the bot's own messages over the gateway, as it does every message.
  if (fake.gateway.hasSession) fake.gateway.dispatch("MESSAGE_CREATE", { ...payload, channel_type: channel.type });
  return { status: 200, body: payload };
}
