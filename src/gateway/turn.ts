/**
 * One turn in a session's lane: find the session (starting a fresh one when the reset policy
 * says so), run its agent on the message with previews streaming to the chat, and send the
 * reply through the ledger. The chat's route follows the agent's session id, which changes
 * when compression continues the conversation in a child session.
 */

import { createHash } from "node:crypto";
import { basename, isAbsolute } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Agent } from "../agent/agent.js";
import { lastUserMessageIndex } from "../agent/turn-checks.js";
import { visionAnalyzer } from "../runtime/vision.js";
import type { HermesConfig } from "../state/config-schema.js";
import { configuredHomeChannel } from "../state/home-channel.js";
import {
  extractOutboundFiles,
  inboundInput,
  type MediaPolicy,
  type OutboundFile,
  type Transcripts,
} from "./attachments.js";
import { speakAnswer, watchForSpeech } from "./auto-speech.js";
import { isBackgroundResultMessage } from "./background-results.js";
import { afterGoalTurn } from "./goal-loop.js";
import { describeImages } from "./image-input.js";
import { ReplyStream } from "./reply-stream.js";
import { resetReason } from "./reset-policy.js";
import type { GatewayRunner } from "./runner.js";
import { isSharedSession, sessionContextPrompt, withEarlierChat, withSender, withSentAt } from "./session-context.js";
import { splitMessage } from "./split-message.js";
import { type Transcription, transcribe } from "./transcription.js";
import { timedOutNote, watchTurn } from "./turn-watch.js";
import type { Attachment, ChatAddress, InboundMessage, PlatformAdapter } from "./types.js";

export interface Turn {
  sessionKey: string;
  message: InboundMessage;
  /** Messages that arrived while the queue was full, answered together with this one. */
  extra: InboundMessage[];
  /** Text to run instead of the message's own (/retry). */
  text?: string;
  /** Started by a command (/queue, /retry), whose message was answered as the command. */
  byCommand?: boolean;
  /** Wants a new reply, not one a provider kept from an identical request (/retry). */
  freshReply?: boolean;
  /** A slash command that had to wait for the session's lane instead of an agent turn. */
  command?: () => Promise<void>;
  /** Tells apart several turns answering one message (a standing goal's steps), each its own reply. */
  replyTag?: string;
}

const TYPING_EVERY_MS = 4000;
export const SHUTDOWN_NOTE =
  "⚠ I was restarted while working on this and had to stop. Send it again if you still need it.";

/** The session's agent, on the session its route names unless that session has run its course. */
export async function sessionAgent(runner: GatewayRunner, sessionKey: string, message: InboundMessage): Promise<Agent> {
  const { runtime, store, settings } = runner;
  const route = await store.sessionRoute(sessionKey);
  const why = route ? resetReason(settings.reset, route.updatedAt, runner.now()) : undefined;
  if (why) {
    runtime.evict(sessionKey);
    runner.log(`${sessionKey}: starting a new session (${why})`);
  }
  const sessionId = route && !why ? route.sessionId : undefined;
  const cached = runner.cachedAgent(sessionKey);
  if (cached && sessionId && cached.sessionId !== sessionId) runtime.evict(sessionKey);
  const live = runner.cachedAgent(sessionKey);
  if (live) return runtime.agentFor(sessionKey);
  // Nobody reads a signed sender's chat (a webhook) to answer prompts: the agent runs unattended.
  const attended = !runner.adapter(message.platform)?.authenticatesSenders;
  const layers = [channelPromptFor(runtime.config, message), await conversationContext(runner, message)];
  const ephemeralSystemPrompt = layers.filter(Boolean).join("\n\n");
  return runtime.agentFor(sessionKey, {
    platform: message.platform,
    ...(ephemeralSystemPrompt ? { ephemeralSystemPrompt } : {}),
    toolsets: settings.toolsets(message.platform),
    interactive: attended,
    ...(sessionId ? { sessionId } : {}),
    ...(runner.permissionModes.has(sessionKey) ? { permissionMode: runner.permissionModes.get(sessionKey)! } : {}),
    requestApproval: (request) => runner.askApproval(message, sessionKey, request),
    // A job the agent schedules from this chat delivers back here.
    services: {
      cronOrigin: {
        platform: message.platform,
        chatId: message.chatId,
        threadId: message.threadId ?? null,
        userId: message.userId,
        sessionKey,
      },
    },
    clarify: (question, choices) => runner.askQuestion(message, sessionKey, question, choices),
  });
}

/** Each audio attachment's transcript (`stt.*`), when speech to text is on. */
async function transcribeVoice(runner: GatewayRunner, attachments: readonly Attachment[]): Promise<Transcripts> {
  const stt = runner.runtime.config.stt;
  const out = new Map<Attachment, Transcription>();
  if (!stt.enabled) return out;
  const settings = {
    provider: stt.provider,
    localModel: stt.local.model,
    localLanguage: stt.local.language,
    openaiModel: stt.openai.model,
    mistralModel: stt.mistral.model,
    elevenlabsModelId: stt.elevenlabs.model_id,
    elevenlabsLanguageCode: stt.elevenlabs.language_code,
    elevenlabsTagAudioEvents: stt.elevenlabs.tag_audio_events,
    elevenlabsDiarize: stt.elevenlabs.diarize,
  };
  for (const attachment of attachments) {
    if (attachment.kind !== "audio" || !isAbsolute(attachment.url)) continue;
    const heard = await transcribe(attachment.url, settings);
    if ("error" in heard) runner.log(`transcribing ${attachment.url} failed: ${heard.error}`);
    out.set(attachment, heard);
  }
  return out;
}

/** The "This conversation" layer (see session-context.ts); none for messages with no chat behind them. */
async function conversationContext(runner: GatewayRunner, message: InboundMessage): Promise<string | undefined> {
  if (runner.adapter(message.platform)?.authenticatesSenders) return undefined;
  const platforms = runner.platforms();
  const homeChannels: Record<string, string> = {};
  for (const platform of platforms) {
    const home =
      (await runner.store.homeChannel(platform))?.chatId ?? configuredHomeChannel(runner.runtime.config, platform);
    if (home) homeChannels[platform] = home;
  }
  return sessionContextPrompt({
    message,
    keys: runner.settings.keys,
    platforms,
    homeChannels,
    redactPii: runner.runtime.config.privacy.redact_pii,
  });
}

/** `<platform>.channel_prompts.<chat id>` (the thread's own id first), an extra system-prompt line. */
function channelPromptFor(config: HermesConfig, message: InboundMessage): string | undefined {
  const section = (config as unknown as Record<string, { channel_prompts?: Record<string, string> } | undefined>)[
    message.platform
  ];
  const prompts = section?.channel_prompts;
  if (!prompts) return undefined;
  return (message.threadId ? prompts[message.threadId] : undefined) ?? prompts[message.chatId];
}

/**
 * A message run again because its earlier attempt was cut off (the process died mid-turn) may
 * find that attempt's user message, and what followed it, at the end of the transcript: it is
 * dropped, so the message is not in the transcript twice.
 */
async function dropCutOffAttempt(runner: GatewayRunner, sessionKey: string, text: string): Promise<void> {
  const route = await runner.store.sessionRoute(sessionKey);
  if (!route) return;
  const sessions = runner.runtime.store;
  const messages = await sessions.getMessages(route.sessionId);
  const index = lastUserMessageIndex(messages);
  const stored = messages[index]?.content;
  // The attempt may have started with the note about an earlier cut-short turn.
  const same =
    stored === text ||
    (typeof stored === "string" && stored.startsWith(CONTINUE_NOTE_START) && stored.endsWith(`]\n\n${text}`));
  if (index < 0 || !same) return;
  await sessions.truncateMessages(route.sessionId, index);
  runner.runtime.evict(sessionKey);
  runner.log(`${sessionKey}: dropped what a cut-off earlier attempt at this message left in the transcript`);
}

/** What the agent is given for a turn: in a shared session each message says who wrote it. */
function turnText(runner: GatewayRunner, turn: Turn): string {
  const shared = isSharedSession(turn.message, runner.settings.keys);
  const redactPii = runner.runtime.config.privacy.redact_pii;
  const stamped = runner.runtime.config.gateway.message_timestamps.enabled;
  const signed = (text: string, message: InboundMessage) => {
    const said = shared ? withSender(text, message, redactPii) : text;
    // Only the platform's own time: it is the same on a retry, so a cut-off attempt is recognised.
    return stamped && message.sentAt !== undefined ? withSentAt(said, message.sentAt) : said;
  };
  const own = withEarlierChat(signed(turn.text ?? turn.message.text, turn.message), turn.message, redactPii, stamped);
  if (turn.extra.length === 0) return own;
  const more = turn.extra.map((m) => signed(m.text, m)).join("\n\n");
  return `${own}\n\n(More messages that arrived while I was busy:)\n${more}`;
}

export async function runTurn(runner: GatewayRunner, turn: Turn): Promise<void> {
  if (turn.command) return turn.command();
  const { message, sessionKey } = turn;
  const adapter = runner.adapter(message.platform);
  const inboundKeys = [turn.message, ...turn.extra].map((m) => ({
    platform: m.platform,
    chatId: m.chatId,
    messageId: m.messageId,
  }));
  let ranBefore = false;
  for (const key of inboundKeys) {
    const record = await runner.store.startInbound(key, runner.now());
    if (key === inboundKeys[0]) ranBefore = record.attempts > 1;
  }
  if (!adapter) {
    runner.log(`no adapter for ${message.platform}; the message waits for a restart`);
    return;
  }
  if (ranBefore) await dropCutOffAttempt(runner, sessionKey, turnText(runner, turn));
  const agent = await sessionAgent(runner, sessionKey, message);
  const target = await runner.replyTarget(message);
  const targetAdapter = runner.adapter(target.platform) ?? adapter;
  const address = { chatId: target.chatId, threadId: target.threadId };
  const display = runner.settings.display(target.platform);
  // Previews go only to a person watching the chat the message came from.
  const watched = !message.deliverTo && !adapter.authenticatesSenders;
  const stream = new ReplyStream({
    adapter: targetAdapter,
    address,
    ...(quotesPart(runner, message, target, 0) ? { replyTo: message.messageId } : {}),
    streaming: watched && display.streaming,
    editIntervalMs: display.editIntervalMs,
    previewAfterChars: display.previewAfterChars,
    freshFinalAfterMs: display.freshFinalAfterMs,
    cursor: display.cursor,
    transport: display.transport,
    toolProgress: watched ? (runner.toolProgressChoice.get(sessionKey) ?? display.toolProgress) : "off",
    log: (line) => runner.log(line),
  });
  const unsubscribe = agent.on(stream.listener);
  const delivery = runner.settings.delivery(message.platform);
  const showTyping = () => {
    if (delivery.typingIndicator) void adapter.typing?.(address).catch(() => undefined);
  };
  const typing = setInterval(showTyping, TYPING_EVERY_MS);
  showTyping();
  let reply: string;
  const agentSettings = runner.runtime.config.agent;
  // Nobody watches a delivered or signed run: it keeps its limit, without notes along the way.
  const limits = {
    timeoutSeconds: agentSettings.gateway_timeout,
    warningSeconds: watched ? agentSettings.gateway_timeout_warning : 0,
    notifySeconds: watched ? agentSettings.gateway_notify_interval : 0,
  };
  const watch = watchTurn(agent, stream, limits, (text) => runner.reply(message, sessionKey, text));
  const speech = watchForSpeech(runner, agent, [message, ...turn.extra]);
  let answered = false;
  let interrupted = false;
  let cutShortBy: string | undefined;
  try {
    const attachments = [message, ...turn.extra].flatMap((m) => m.attachments ?? []);
    const transcripts = await transcribeVoice(runner, attachments);
    const described = await describeImages({
      mode: agentSettings.image_input_mode,
      model: agent.options.model,
      attachments,
      analyze: visionAnalyzer(runner.runtime.auxiliary),
      log: (line) => runner.log(line),
    });
    const resume = await continueNote(runner, agent);
    const input = inboundInput(resume + turnText(runner, turn), attachments, transcripts, described);
    const result = await agent.runConversation(input, turn.freshReply ? { freshReply: true } : {});
    interrupted = Boolean(result.interrupted);
    if (watch.timedOut) cutShortBy = "it ran past agent.gateway_timeout";
    else if (result.interrupted && runner.isStopping) cutShortBy = "the gateway restarted";
    if (watch.timedOut) reply = [result.finalResponse, timedOutNote(limits)].filter(Boolean).join("\n\n");
    else if (result.error) reply = `⚠ ${result.error}`;
    else if (result.interrupted && runner.isStopping) reply = delivery.restartNotification ? SHUTDOWN_NOTE : "";
    else if (result.interrupted && !result.finalResponse) reply = "";
    else {
      reply = result.finalResponse;
      answered = true;
    }
  } catch (error) {
    reply = `⚠ Something went wrong: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    watch.stop();
    speech?.stop();
    clearInterval(typing);
    unsubscribe();
    await stream.close();
  }
  await runner.routeSession(sessionKey, message, agent.sessionId);
  if (stream.previewMessageId && !stream.finalEditsPreview && targetAdapter.delete) {
    // Long enough that the user may have looked away: the answer comes as a new message, which notifies.
    await targetAdapter.delete?.(address, stream.previewMessageId).catch(() => undefined);
    await sendReply(runner, turn, reply, undefined);
  } else await sendReply(runner, turn, reply, stream.previewMessageId);
  if (speech && answered && !speech.spoke) {
    const spoken = await speakAnswer(runner, reply);
    if (spoken) await sendFiles(runner, turn, [spoken]);
  }
  if (cutShortBy) await recordCutShort(runner, sessionKey, agent.sessionId, cutShortBy);
  for (const key of inboundKeys) await runner.store.finishInbound(key, runner.now());
  await compressIfFull(runner, agent, turn);
  if (!runner.isStopping) await afterGoalTurn(runner, turn, agent.sessionId, { reply, answered, interrupted });
}

const CUT_SHORT = "(This turn was cut short before it finished: ";
const CONTINUE_NOTE_START = "[System note: your previous turn was cut short (";

/** A turn stopped by a restart or the time limit says so in the transcript, for the next turn. */
async function recordCutShort(runner: GatewayRunner, sessionKey: string, sessionId: string, why: string) {
  try {
    await runner.runtime.store.appendMessage(sessionId, { role: "assistant", content: `${CUT_SHORT}${why}.)` });
    // The agent in memory does not hold that message: the next turn reads the transcript again.
    runner.runtime.evict(sessionKey);
  } catch (error) {
    runner.log(`${sessionKey}: could not note the cut-short turn: ${error instanceof Error ? error.message : error}`);
  }
}

/**
 * When the session's last turn was cut short within `agent.gateway_auto_continue_freshness`, the
 * next message starts with a note asking the model to pick the unfinished work up, unless the
 * message changes the task. Older cut-off turns are left alone: they may be long forgotten.
 */
async function continueNote(runner: GatewayRunner, agent: Agent): Promise<string> {
  const store = runner.runtime.store;
  const sessionId = agent.sessionId;
  // An agent kept in memory holds its transcript; only a fresh one (after a restart, or the
  // cut-short note itself) makes this read the store.
  const last = (agent.messages.length > 0 ? agent.messages : await store.getMessages(sessionId)).at(-1);
  const content = last?.role === "assistant" && typeof last.content === "string" ? last.content : "";
  if (!content.startsWith(CUT_SHORT)) return "";
  const freshness = runner.runtime.config.agent.gateway_auto_continue_freshness;
  const session = await store.getSession(sessionId);
  if (freshness > 0 && (!session || runner.now() - session.lastActive > freshness * 1000)) return "";
  const why = content.slice(CUT_SHORT.length).replace(/\.\)$/, "");
  return `${CONTINUE_NOTE_START}${why}) before you finished. Unless this message changes the task, continue the unfinished work where it stopped.]\n\n`;
}

/** Which files a reply may send (`gateway.strict` and its companions). */
function mediaPolicy(runner: GatewayRunner): MediaPolicy {
  const gateway = runner.runtime.config.gateway;
  return {
    strict: gateway.strict,
    home: runner.runtime.home,
    allowDirs: gateway.media_delivery_allow_dirs,
    trustRecentFiles: gateway.trust_recent_files,
    trustRecentSeconds: gateway.trust_recent_files_seconds,
  };
}

async function sendReply(
  runner: GatewayRunner,
  turn: Turn,
  reply: string,
  previewId: string | undefined,
): Promise<void> {
  const { message, sessionKey } = turn;
  const target = await runner.replyTarget(message);
  // A target platform that is not running still gets a ledger entry: it is retried, then recorded as failed.
  const adapter = runner.adapter(target.platform);
  const { text, files, refused } = extractOutboundFiles(reply, mediaPolicy(runner));
  for (const why of refused) runner.log(`not sending a file the reply named: ${why}`);
  if (!text.trim()) {
    if (previewId) await adapter?.delete?.({ chatId: target.chatId, threadId: target.threadId }, previewId);
    return sendFiles(runner, turn, files);
  }
  const formatted = adapter?.formatMarkdown ? adapter.formatMarkdown(text) : text;
  // A reply the platform takes whole in a richer form of its own goes as the markdown itself.
  const parts = adapter?.sendsWhole?.(text) ? [text] : splitMessage(formatted, adapter?.maxMessageLength ?? 4096);
  // The answer's parts are named after the message they answer: if this turn runs again (its
  // replica died after recording them), the ledger already has them and nothing is sent twice.
  const answering = createHash("sha256")
    .update(`${message.platform}\0${message.chatId}\0${message.messageId}${turn.replyTag ? `\0${turn.replyTag}` : ""}`)
    .digest("hex")
    .slice(0, 32);
  for (const [index, part] of parts.entries()) {
    if (index > 0) await pauseLikeAPerson(runner, adapter, target);
    await runner.deliveries.deliver({
      ...target,
      replyTo: quotesPart(runner, message, target, index) ? message.messageId : null,
      sessionKey,
      text: part,
      editMessageId: index === 0 ? previewId : undefined,
      idempotencyKey: `reply-${answering}-${index}`,
      // Across replicas this turn holds the session's lease: a send of this answer still in
      // flight was left by a turn whose lease ran out.
      reclaimInFlight: runner.shared,
    });
  }
  await sendFiles(runner, turn, files);
}

/** Whether part `index` of a reply quotes the message it answers (`reply_to_mode`; only in that chat). */
function quotesPart(
  runner: GatewayRunner,
  message: InboundMessage,
  target: { platform: string; chatId: string },
  index: number,
): boolean {
  if (target.platform !== message.platform || target.chatId !== message.chatId) return false;
  if (isBackgroundResultMessage(message)) return false;
  const mode = runner.settings.delivery(target.platform).replyToMode;
  return mode === "all" || (mode === "first" && index === 0);
}

/**
 * `human_delay`: before each further part of a reply, the chat shows typing for a random while,
 * as if a person were writing the next message. A stopping gateway does not wait.
 */
async function pauseLikeAPerson(
  runner: GatewayRunner,
  adapter: PlatformAdapter | undefined,
  target: ChatAddress,
): Promise<void> {
  const range = runner.settings.humanDelay;
  if (!range || runner.isStopping) return;
  const showsTyping = !adapter || runner.settings.delivery(adapter.platform).typingIndicator;
  const ms = range.minMs + Math.floor(Math.random() * (range.maxMs - range.minMs + 1));
  if (ms <= 0) return;
  if (showsTyping) void adapter?.typing?.({ chatId: target.chatId, threadId: target.threadId }).catch(() => undefined);
  await delay(ms, undefined, { signal: runner.stopSignal }).catch(() => undefined);
}

/** Files the reply asked to send, each as an image or a document; a failure is told in the chat. */
async function sendFiles(runner: GatewayRunner, turn: Turn, files: OutboundFile[]): Promise<void> {
  if (files.length === 0) return;
  const target = await runner.replyTarget(turn.message);
  const adapter = runner.adapter(target.platform);
  const address = { chatId: target.chatId, threadId: target.threadId };
  for (const file of files) {
    const send = file.image ? (adapter?.sendImage ?? adapter?.sendFile) : adapter?.sendFile;
    let problem: string | undefined;
    if (!adapter || !send) problem = `${target.platform} cannot receive files from me`;
    else {
      try {
        await send.call(adapter, address, file.path);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
    }
    if (problem) {
      runner.log(`sending ${file.path} to ${target.platform} ${target.chatId} failed: ${problem}`);
      await runner.reply(turn.message, turn.sessionKey, `⚠ I could not send ${basename(file.path)}: ${problem}`);
    }
  }
}

/** Between turns, a session past 85% of its window is compressed; the route follows the new session. */
async function compressIfFull(runner: GatewayRunner, agent: Agent, turn: Turn): Promise<void> {
  if (!agent.shouldCompressBetweenTurns()) return;
  try {
    await agent.compress();
    await runner.routeSession(turn.sessionKey, turn.message, agent.sessionId);
  } catch (error) {
    runner.log(`compressing ${turn.sessionKey} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
