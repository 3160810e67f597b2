/**
 * AWS Bedrock Converse (`ConverseStream`), through `@aws-sdk/client-bedrock-runtime` for SigV4
 * signing and the binary event-stream framing. The SDK is imported only when a request is
 * made, so nothing pays for it unless Bedrock is in use. Requests go over HTTP/1.1
 * (see bedrock-http.ts), and the SDK does not retry: the agent's retry loop owns that.
 *
 * Malformed chunks: an event the SDK cannot decode ends the stream with LlmError `malformed`.
 */
import { bedrockDefaults } from "../bedrock-defaults.js";
import { LlmError } from "../errors.js";
import { normalizeFinishReason, type SplitPiece, ThinkTagSplitter } from "../normalize.js";
import type { LlmEvent, LlmRequest, ReasoningContinuity, Transport, Usage } from "../types.js";
import { usageFromBedrock } from "../usage.js";
import { abortError, disconnectError, type ErrorContext, errorCode, StreamWatchdog } from "../watchdog.js";
import { createBedrockRequestHandler } from "./bedrock-http.js";
import { buildConverseInput, regionFromBaseUrl } from "./bedrock-messages.js";
import type { TransportOptions } from "./common.js";

export { buildConverseInput, regionFromBaseUrl, toBedrockMessages } from "./bedrock-messages.js";

export interface BedrockTransportOptions extends TransportOptions {
  /** AWS region; default: from a bedrock-runtime base URL, then `bedrock.region`, then AWS_REGION / AWS_DEFAULT_REGION, then us-east-1. */
  region?: string;
  /** Static credentials; default: the SDK's chain (env, profile, SSO, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

type Thinking = NonNullable<ReasoningContinuity["anthropicThinking"]>[number];
type StreamEvent = Record<string, unknown>;
interface ReasoningDelta {
  text?: string;
  signature?: string;
  redactedContent?: Uint8Array;
}
interface BlockDelta {
  text?: unknown;
  toolUse?: { input?: unknown };
  reasoningContent?: ReasoningDelta;
}

const STREAM_ERROR_STATUS: Record<string, number> = {
  ThrottlingException: 429,
  ServiceUnavailableException: 503,
  ValidationException: 400,
  ModelStreamErrorException: 500,
  InternalServerException: 500,
};

/** Maps whatever the SDK threw to an LlmError. */
function sdkError(error: unknown, context: ErrorContext, signal: AbortSignal): LlmError {
  if (error instanceof LlmError) return error;
  if (signal.aborted) return abortError(context);
  const e = (error ?? {}) as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    $response?: { headers?: Record<string, string> };
  };
  const name = e.name ?? "Error";
  const message = e.message ?? "";
  const status = e.$metadata?.httpStatusCode;
  if ((status !== undefined && status >= 300) || name in STREAM_ERROR_STATUS) {
    const httpStatus = status !== undefined && status >= 300 ? status : (STREAM_ERROR_STATUS[name] ?? 500);
    const headers = e.$response?.headers;
    return new LlmError(`Bedrock returned HTTP ${httpStatus} (${name}): ${message}`, {
      kind: "http",
      status: httpStatus,
      body: { name, message },
      cause: error,
      ...context,
      ...(headers ? { headers } : {}),
    });
  }
  if (error instanceof SyntaxError || /deserializ|unexpected token|json/i.test(message)) {
    return new LlmError(`Bedrock sent an unreadable stream event: ${message}`, {
      kind: "malformed",
      cause: error,
      ...context,
    });
  }
  const code = errorCode(error);
  if (code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_CONNECT)/.test(code)) {
    return new LlmError(`Could not reach Bedrock (${code}).`, { kind: "network", code, cause: error, ...context });
  }
  return disconnectError(context, code ?? (message || name), error);
}

function textEvents(pieces: SplitPiece[]): LlmEvent[] {
  return pieces.map((p) =>
    p.kind === "text" ? { type: "text_delta", text: p.text } : { type: "reasoning_delta", text: p.text },
  );
}

/** Turns ConverseStream events into LlmEvents and remembers what the final events need. */
class ConverseStreamState {
  private readonly splitter = new ThinkTagSplitter();
  private readonly thinking: Thinking[] = [];
  private readonly toolByBlock = new Map<number, number>();
  private toolCount = 0;
  private stopReason: string | undefined;
  private usage: Usage | undefined;
  stopped = false;

  handle(event: StreamEvent): LlmEvent[] {
    if (event.contentBlockStart) {
      const start = event.contentBlockStart as {
        contentBlockIndex?: number;
        start?: { toolUse?: { toolUseId?: string; name?: string } };
      };
      const toolUse = start.start?.toolUse;
      if (!toolUse) return [];
      const index = this.toolCount++;
      this.toolByBlock.set(start.contentBlockIndex ?? -1, index);
      return [{ type: "tool_call_start", index, id: toolUse.toolUseId ?? "", name: toolUse.name ?? "" }];
    }
    if (event.contentBlockDelta) {
      const { contentBlockIndex, delta } = event.contentBlockDelta as {
        contentBlockIndex?: number;
        delta?: BlockDelta;
      };
      return this.delta(this.toolByBlock.get(contentBlockIndex ?? -1), delta ?? {});
    }
    if (event.contentBlockStop) {
      const tool = this.toolByBlock.get(
        (event.contentBlockStop as { contentBlockIndex?: number }).contentBlockIndex ?? -1,
      );
      return tool === undefined ? [] : [{ type: "tool_call_end", index: tool }];
    }
    if (event.messageStop) {
      this.stopped = true;
      this.stopReason = (event.messageStop as { stopReason?: string }).stopReason;
    } else if (event.metadata) {
      const usage = (event.metadata as { usage?: unknown }).usage;
      if (usage) this.usage = usageFromBedrock(usage);
    }
    return [];
  }

  private delta(tool: number | undefined, delta: BlockDelta): LlmEvent[] {
    const out: LlmEvent[] = [];
    if (typeof delta.text === "string") out.push(...textEvents(this.splitter.push(delta.text)));
    const input = delta.toolUse?.input;
    if (tool !== undefined && typeof input === "string" && input) {
      out.push({ type: "tool_call_delta", index: tool, argumentsDelta: input });
    }
    const reasoning = delta.reasoningContent;
    if (reasoning) {
      let last = this.thinking[this.thinking.length - 1];
      if (typeof reasoning.text === "string") {
        if (last?.type !== "thinking" || last.signature) {
          last = { type: "thinking", thinking: "" };
          this.thinking.push(last);
        }
        last.thinking += reasoning.text;
        out.push({ type: "reasoning_delta", text: reasoning.text });
      }
      if (typeof reasoning.signature === "string" && last?.type === "thinking") last.signature = reasoning.signature;
      if (reasoning.redactedContent) {
        this.thinking.push({
          type: "redacted_thinking",
          data: Buffer.from(reasoning.redactedContent).toString("base64"),
        });
      }
    }
    return out;
  }

  finish(): LlmEvent[] {
    const out = textEvents(this.splitter.flush());
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    if (this.thinking.length > 0)
      out.push({ type: "reasoning_continuity", continuity: { anthropicThinking: this.thinking } });
    out.push({ type: "finish", reason: normalizeFinishReason(this.stopReason, this.toolCount > 0) });
    return out;
  }
}

async function* streamBedrock(
  options: BedrockTransportOptions,
  req: LlmRequest,
  signal: AbortSignal,
): AsyncGenerator<LlmEvent> {
  const context: ErrorContext = { provider: options.provider ?? "bedrock", model: req.model };
  if (signal.aborted) throw abortError(context);
  const sdk = await import("@aws-sdk/client-bedrock-runtime");
  const defaults = bedrockDefaults();
  const region =
    options.region ??
    regionFromBaseUrl(options.baseUrl) ??
    defaults.region ??
    process.env.AWS_REGION ??
    process.env.AWS_DEFAULT_REGION ??
    "us-east-1";
  const config: Record<string, unknown> = {
    region,
    maxAttempts: 1,
    requestHandler: createBedrockRequestHandler(options.env, context),
  };
  if (options.baseUrl) config.endpoint = options.baseUrl;
  if (options.credentials) config.credentials = options.credentials;
  if (options.apiKey) {
    config.token = { token: options.apiKey };
    config.authSchemePreference = ["httpBearerAuth"];
  }
  const client = new sdk.BedrockRuntimeClient(config);
  const input = buildConverseInput(req, options, defaults.guardrail) as unknown as ConstructorParameters<
    typeof sdk.ConverseStreamCommand
  >[0];
  const watchdog = new StreamWatchdog(options.timeouts, signal, context);
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const state = new ConverseStreamState();
  try {
    const send = client.send(new sdk.ConverseStreamCommand(input), { abortSignal: controller.signal });
    const response = await watchdog.next(send).catch((error: unknown) => {
      throw sdkError(error, context, signal);
    });
    if (!response.stream) throw disconnectError(context, "no event stream");
    const iterator = (response.stream as AsyncIterable<StreamEvent>)[Symbol.asyncIterator]();
    for (;;) {
      const result = await watchdog.next(iterator.next()).catch((error: unknown) => {
        throw sdkError(error, context, signal);
      });
      if (result.done) break;
      watchdog.progress();
      yield* state.handle(result.value);
    }
    if (!state.stopped) throw disconnectError(context, "no messageStop");
    yield* state.finish();
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!state.stopped) controller.abort();
    client.destroy();
  }
}

export function createBedrockConverseTransport(options: BedrockTransportOptions = {}): Transport {
  return {
    apiMode: "bedrock_converse",
    stream: (req, signal) => streamBedrock(options, req, signal),
  };
}
