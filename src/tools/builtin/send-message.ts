/**
 * The `send_message` tool: the agent sends a text to a chat on a messaging platform the gateway
 * serves ("send the summary to my Telegram"), or lists the chats it can address. Targets follow
 * the rules cron's `deliver` uses: a platform (its home channel), `platform:chat[:thread]`,
 * `origin` (the chat this conversation is in) or `all` (every home channel). The sending lives
 * behind `SendMessageBackend`: in the gateway a message goes out at once through its delivery
 * ledger; elsewhere it is recorded in the ledger for the gateway to send.
 */
import { redactSecrets } from "../../util/redact.js";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

/** Longer messages are refused: a tool call is no way to post a document (parts are split below this). */
export const MAX_MESSAGE_CHARS = 16_000;
const MAX_TARGET_CHARS = 256;
/** C0/C1 controls, and invisible characters that could make a target look like another. */
const CONTROL_OR_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const PLATFORM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** Controls a chat cannot show, dropped from the text (tab and line breaks stay). */
const STRAY_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const MEDIA_LINE = /^[ \t]*MEDIA:.*(?:\r?\n|$)/gm;

/** The chat a call comes from (the gateway passes it as `ctx.services.cronOrigin`). */
export interface SendMessageOrigin {
  platform: string;
  chatId: string;
  threadId?: string | null;
}

/** sent: the platform accepted it; queued: in the ledger for the gateway; retrying: the first attempt failed, the ledger retries. */
export type SendStatus = "sent" | "queued" | "retrying" | "failed";

export interface SentDelivery {
  /** `platform:chat[:thread]`. */
  target: string;
  /** One ledger record per part, in order. */
  deliveryIds: string[];
  status: SendStatus;
  error?: string;
}

export interface SendOutcome {
  deliveries: SentDelivery[];
  /** Whether a gateway is running to send queued messages (known outside the gateway only). */
  gatewayRunning?: boolean;
  note?: string;
}

/** What the tool needs from the gateway side; `list` and `send` throw readable errors. */
export interface SendMessageBackend {
  /** Whether any platform can be addressed here (cheap: no store is opened). */
  available(): boolean;
  /** The platforms (with home channels) and recent chats that can be addressed, JSON-able. */
  list(origin: SendMessageOrigin | null): Promise<Record<string, unknown>>;
  send(request: { target: string; text: string; origin: SendMessageOrigin | null }): Promise<SendOutcome>;
  close?(): void | Promise<void>;
}

export const sendMessageParameters = z.object({
  action: z.enum(["send", "list"]).optional().describe("send (default), or list the platforms and chats to send to"),
  target: z
    .string()
    .optional()
    .describe(
      "For send: a platform (its home channel, e.g. telegram), platform:chat_id or platform:chat_id:thread_id " +
        "(ids from list), origin (this chat) or all (every home channel)",
    ),
  message: z.string().optional().describe(`For send: the text, at most ${MAX_MESSAGE_CHARS} characters`),
});

export type SendMessageArgs = z.infer<typeof sendMessageParameters>;

const reply = (value: unknown) => JSON.stringify(value);

/** The target as the backend takes it (platform name in lower case), or why it is not one. */
export function checkTarget(raw: string | undefined): string {
  const target = (raw ?? "").trim();
  if (!target) throw new Error("send needs a target: a platform, platform:chat_id[:thread_id], origin or all");
  if (target.length > MAX_TARGET_CHARS) throw new Error(`the target is longer than ${MAX_TARGET_CHARS} characters`);
  if (CONTROL_OR_INVISIBLE.test(target)) throw new Error("the target holds control or invisible characters");
  if (target.includes(",")) throw new Error("one target per call; call send again for another chat");
  if (target === "local") throw new Error("local is not a chat; name a platform or platform:chat_id");
  const parts = target.split(":");
  if (parts.length > 3 || parts.some((part) => part.trim() === "" || part !== part.trim())) {
    throw new Error(`"${target}" is not a target: use platform, platform:chat_id or platform:chat_id:thread_id`);
  }
  const platform = (parts[0] as string).toLowerCase();
  if (!PLATFORM_NAME.test(platform)) throw new Error(`"${parts[0]}" is not a platform name (action list shows them)`);
  return [platform, ...parts.slice(1)].join(":");
}

/** The text to send: `MEDIA:` lines left out (no files go through here), secrets masked, stray controls dropped. */
export function outgoingText(message: string): { text: string; mediaLeftOut: number; redacted: boolean } {
  let mediaLeftOut = 0;
  const withoutMedia = message.replace(MEDIA_LINE, () => {
    mediaLeftOut += 1;
    return "";
  });
  const clean = withoutMedia.replace(STRAY_CONTROLS, "");
  const text = redactSecrets(clean).trim();
  return { text, mediaLeftOut, redacted: text !== clean.trim() };
}

function statusOf(deliveries: readonly SentDelivery[]): SendStatus {
  for (const status of ["failed", "retrying", "queued"] as const) {
    if (deliveries.some((d) => d.status === status)) return status;
  }
  return "sent";
}

async function send(args: SendMessageArgs, backend: SendMessageBackend, origin: SendMessageOrigin | null) {
  const target = checkTarget(args.target);
  if (args.message === undefined || !args.message.trim()) throw new Error("send needs a message");
  const { text, mediaLeftOut, redacted } = outgoingText(args.message);
  if (!text) throw new Error("the message has no text once its MEDIA: lines are left out (files cannot be sent here)");
  if (text.length > MAX_MESSAGE_CHARS) {
    throw new Error(
      `the message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}: shorten it or summarise`,
    );
  }
  const outcome = await backend.send({ target, text, origin });
  const [first] = outcome.deliveries;
  const status = statusOf(outcome.deliveries);
  const notes = [
    ...(outcome.note ? [outcome.note] : []),
    ...(mediaLeftOut ? [`${mediaLeftOut} MEDIA: line(s) were left out: send_message sends text only`] : []),
  ];
  const single =
    outcome.deliveries.length === 1 && first
      ? {
          target: first.target,
          delivery_id: first.deliveryIds[0],
          ...(first.deliveryIds.length > 1 ? { parts: first.deliveryIds.length, delivery_ids: first.deliveryIds } : {}),
          status,
          ...(first.error ? { error: first.error } : {}),
        }
      : {
          target,
          delivery_id: first?.deliveryIds[0],
          status,
          deliveries: outcome.deliveries.map((d) => ({
            target: d.target,
            delivery_id: d.deliveryIds[0],
            status: d.status,
            ...(d.error ? { error: d.error } : {}),
          })),
        };
  return {
    success: status !== "failed",
    ...single,
    ...(outcome.gatewayRunning !== undefined ? { gateway_running: outcome.gatewayRunning } : {}),
    ...(redacted ? { redacted: true } : {}),
    ...(notes.length ? { note: notes.join("; ") } : {}),
  };
}

export async function sendMessageTool(args: SendMessageArgs, ctx: Pick<ToolContext, "services">): Promise<string> {
  const backend = ctx.services?.sendMessage as SendMessageBackend | undefined;
  if (!backend) {
    return reply({
      success: false,
      error: "Sending messages is not available here (hermes gateway setup adds a platform).",
    });
  }
  const origin = (ctx.services?.cronOrigin as SendMessageOrigin | undefined) ?? null;
  try {
    if ((args.action ?? "send") === "list") return reply({ success: true, ...(await backend.list(origin)) });
    return reply(await send(args, backend, origin));
  } catch (error) {
    return reply({ success: false, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * A backend built on its first call: a run that never sends opens no gateway store. `available`
 * answers without building it.
 */
export function lazySendBackend(
  available: () => boolean,
  build: () => Promise<SendMessageBackend>,
): SendMessageBackend & { close(): Promise<void> } {
  let building: Promise<SendMessageBackend> | undefined;
  const backend = () => {
    building ??= build();
    // A failed build is tried again on the next call rather than remembered.
    building.catch(() => {
      building = undefined;
    });
    return building;
  };
  return {
    available,
    list: async (origin) => (await backend()).list(origin),
    send: async (request) => (await backend()).send(request),
    async close() {
      if (!building) return;
      const built = await building.catch(() => undefined);
      await built?.close?.();
    },
  };
}

/** Registered by the gateway (sends at once) and the terminal (queues for the gateway). */
export function registerSendMessageTool(registry: ToolRegistry, backend: SendMessageBackend): void {
  registry.register({
    name: "send_message",
    toolset: "messaging",
    description:
      "Send a text message to a chat on a connected messaging platform (Telegram, Discord, Slack, email), when " +
      "the user asks to send, post or notify somewhere other than this conversation. target: a platform name " +
      "(its home channel), platform:chat_id[:thread_id], origin (this chat) or all (every home channel); " +
      "action list shows the platforms and recent chats. Text only, no files. Returns {success, target, " +
      "delivery_id, status: sent | queued (the gateway sends it) | retrying | failed, error}, or for list the " +
      "platforms with their home channels and the recent chats.",
    parameters: sendMessageParameters,
    handler: (args, ctx) => sendMessageTool(args, { services: { ...ctx.services, sendMessage: backend } }),
    check: () => backend.available(),
    parallelSafe: false,
    emoji: "📨",
  });
}
