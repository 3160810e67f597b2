/**
 * node:crypto, loaded on first use. Loading it costs several ms of CPU at start-up (about twice
 * as much on Node 24 as on Node 20), and a one-shot run needs none of it; modules on the
 * start-up path take it through this instead of importing it.
 */
export function nodeCrypto(): typeof import("node:crypto") {
  return process.getBuiltinModule("node:crypto");
}
