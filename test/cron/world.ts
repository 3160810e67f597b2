import { join } from "node:path";
import { CronTicker } from "../../src/cron/ticker.js";
import { type CronStore, type NewCronJob, openCronStore } from "../../src/state/cron-store.js";
import type { FakeProviderOptions } from "../fake-provider/types.js";
import { type GatewayHarness, startGateway } from "../gateway/harness.js";

export interface World {
  gw: GatewayHarness;
  cron: CronStore;
  clock: { now: number };
  /** The world's ticker; `another` builds a second one (another process's, as far as the lease goes). */
  ticker: (another?: boolean) => CronTicker;
  close(): Promise<void>;
}

export const T0 = Date.parse("2026-11-24T09:00:00Z");

export async function world(provider: FakeProviderOptions = {}, config = ""): Promise<World> {
  const gw = await startGateway({ provider, config });
  const cron = await openCronStore(join(gw.home, "state.db"));
  const clock = { now: T0 };
  await gw.store.setHomeChannel({ platform: "test", chatId: "home", threadId: null });
  const build = () =>
    new CronTicker({
      runtime: gw.runtime,
      cron,
      gateway: gw.store,
      home: gw.home,
      timeoutMs: 600_000,
      now: () => clock.now,
    });
  const main = build();
  return {
    gw,
    cron,
    clock,
    ticker: (another = false) => (another ? build() : main),
    async close() {
      cron.close();
      await gw.close();
    },
  };
}

export const hourly = (extra: Partial<NewCronJob> = {}): NewCronJob => ({
  name: "hourly digest",
  prompt: "summarise the inbox",
  schedule: { kind: "interval", minutes: 60 },
  scheduleDisplay: "every 1h",
  nextRunAt: T0,
  deliver: "test",
  ...extra,
});
