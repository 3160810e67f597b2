/**
 * `send_message` in the terminal: a message is recorded in the gateway's delivery ledger, and the
 * gateway sends it. The tool is offered only while a messaging platform is set up, and the
 * gateway store opens on its first call, so a run that sends nothing never opens it.
 */
import { messagingPlatforms } from "../gateway/platform-catalog.js";
import type { HermesRuntime } from "../runtime/runtime.js";
import { lazySendBackend, registerSendMessageTool } from "../tools/builtin/send-message.js";

export function registerTerminalSendMessage(
  runtime: Pick<HermesRuntime, "registry" | "config" | "home" | "storeLocation"> &
    Partial<Pick<HermesRuntime, "store">>,
  env: Record<string, string | undefined> = process.env,
): { close(): Promise<void> } {
  const backend = lazySendBackend(
    () => messagingPlatforms(runtime.config, env).length > 0,
    async () =>
      (await import("../gateway/send-backend.js")).openLedgerSendBackend({
        storeLocation: runtime.storeLocation,
        config: runtime.config,
        home: runtime.home,
        ...(runtime.store ? { sessions: runtime.store } : {}),
        env,
      }),
  );
  registerSendMessageTool(runtime.registry, backend);
  return backend;
}
