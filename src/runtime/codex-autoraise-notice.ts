/**
 * Says once per profile that the Codex route compresses later than `compression.threshold`
 * (see src/agent/compression/codex-autoraise.ts), and how to turn that off. A marker file in
 * HERMES_HOME (the original's name) records that it was said.
 */
import { codexAutoraiseApplies, effectiveThreshold } from "../agent/compression/codex-autoraise.js";

export const AUTORAISE_NOTICE_MARKER = ".codex_gpt55_autoraise_notice";

export function noticeCodexAutoraise(
  home: string,
  compression: { threshold: number; codex_gpt55_autoraise: boolean },
  route: { provider: string; model: string },
  notice: (message: string) => void,
): void {
  if (!compression.codex_gpt55_autoraise || !codexAutoraiseApplies(route.provider, route.model)) return;
  const raised = effectiveThreshold(compression.threshold, route);
  if (raised === compression.threshold) return;
  const { existsSync, writeFileSync } = process.getBuiltinModule("node:fs");
  const { join } = process.getBuiltinModule("node:path");
  const marker = join(home, AUTORAISE_NOTICE_MARKER);
  if (existsSync(marker)) return;
  notice(
    `${route.model} on the Codex subscription route has a 272K window: conversations compress at ${Math.round((raised ?? 0) * 100)}% of it instead of compression.threshold (${compression.threshold}). To keep the threshold: hermes config set compression.codex_gpt55_autoraise false`,
  );
  try {
    writeFileSync(marker, `${new Date().toISOString()}\n`, { mode: 0o600 });
  } catch {
    // A home we cannot write to shows the notice again next time; nothing else depends on it.
  }
}
