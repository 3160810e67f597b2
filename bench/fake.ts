/** The fake provider as the benchmarks start it (its sockets have TCP_NODELAY, so it adds no ACK stalls). */
import { startFakeProvider } from "../test/fake-provider/server.js";
import type { FakeProvider, FakeProviderOptions } from "../test/fake-provider/types.js";

export function startBenchFake(options: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProvider(options);
}
