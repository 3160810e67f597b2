/**
 * `lsp.*` from config.yaml turned into the edit tools' diagnostics hook. Nothing of the LSP
 * client loads until the first edit; the runtime closes the servers when it closes.
 */
import type { HermesConfig } from "../state/config-schema.js";
import { type LazyDiagnostics, lazyDiagnostics } from "../tools/lsp/hook.js";

/** The hook and its owner, or undefined when `lsp.enabled` is false or `lsp.wait_mode` is none. */
export function lspDiagnostics(config: HermesConfig, home: string): LazyDiagnostics | undefined {
  const { lsp } = config;
  if (!lsp.enabled || lsp.wait_mode === "none") return undefined;
  return lazyDiagnostics({
    waitMode: lsp.wait_mode,
    waitTimeoutSeconds: lsp.wait_timeout,
    installStrategy: lsp.install_strategy,
    servers: lsp.servers,
    home,
  });
}
