import type { PlatformContext, PlatformModule, ProbeResult } from "../../platform-catalog.js";
import type { PlatformAdapter } from "../../types.js";

function notBuilt(): never {
  throw new Error("the email adapter is not built yet");
}

export const platform: PlatformModule = {
  createAdapter(_context: PlatformContext): PlatformAdapter {
    return notBuilt();
  },
  async probe(): Promise<ProbeResult> {
    return notBuilt();
  },
};
export const { createAdapter, probe } = platform;
