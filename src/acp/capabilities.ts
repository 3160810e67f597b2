/** What `initialize` tells an editor: protocol version, capabilities and ways to sign in. */
import type { AuthMethod, InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { packageVersion } from "../util/version.js";

/** The SDK's `PROTOCOL_VERSION`, kept here so `initialize` can be answered before the SDK loads (a test compares them). */
export const ACP_PROTOCOL_VERSION = 1;

export const AUTH_API_KEY = "api-key";
export const AUTH_SETUP = "hermes-setup";

export function authMethods(): AuthMethod[] {
  return [
    {
      id: AUTH_API_KEY,
      name: "Use the configured provider",
      description: "An API key or local model server already set up in ~/.hermes (config.yaml and .env)",
    },
    {
      id: AUTH_SETUP,
      name: "Run hermes setup",
      description: "Choose a provider and enter an API key in a terminal",
      type: "terminal",
      args: ["setup"],
    },
  ];
}

export function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: packageVersion() },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, fork: {}, close: {} },
    },
    authMethods: authMethods(),
  };
}
