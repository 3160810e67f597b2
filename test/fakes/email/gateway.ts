/**
 * A real gateway (test harness) with the email adapter built the way `hermes gateway` builds
 * it: from config.yaml and EMAIL_* settings, pointed at a loopback mail world.
 */
import type { EmailAdapter } from "../../../src/gateway/adapters/email/adapter.js";
import { platform } from "../../../src/gateway/adapters/email/platform.js";
import { loadConfig } from "../../../src/state/config.js";
import type { FakeProviderOptions } from "../../fake-provider/types.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import type { MailWorld } from "./mail-world.js";

export const ALICE = "alice@example.test";

export interface EmailGateway {
  gw: GatewayHarness;
  email(): EmailAdapter;
  logs: string[];
}

export interface EmailGatewayOptions {
  provider?: FakeProviderOptions;
  config?: string;
  /** EMAIL_* and allowlist settings beside the world's own (default: Alice is allowed). */
  env?: Record<string, string>;
  home?: string;
  runner?: GatewayHarnessOptions["runner"];
}

export async function startEmailGateway(world: MailWorld, options: EmailGatewayOptions = {}): Promise<EmailGateway> {
  const home = options.home ?? tempDir("hermes-email-");
  const env = { TEST_ALLOWED_USERS: "user-1", EMAIL_ALLOWED_USERS: ALICE, ...world.env(options.env) };
  const logs: string[] = [];
  const gw = await startGateway({
    home,
    env,
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.runner ? { runner: options.runner } : {}),
    extraAdapters: () => [
      platform.createAdapter({
        config: loadConfig({ home }).config,
        env,
        home,
        log: (line) => logs.push(line),
      }) as EmailAdapter,
    ],
  });
  return { gw, logs, email: () => gw.runner.adapter("email") as EmailAdapter };
}

/** Polls a condition (state the servers hold) until it holds, failing with `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
