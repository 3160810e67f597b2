/** Registers every built-in tool, sharing one approval policy and one process manager between them. */
import type { ApprovalPolicy } from "../approval/policy.js";
import type { DiagnoseHook } from "../lsp/hook.js";
import type { ProcessManager } from "../process-manager.js";
import { defaultProcessManager } from "../process-manager.js";
import type { ToolRegistry } from "../registry.js";
import type { WebsiteBlocklist } from "../web/blocklist.js";
import { BrowserTools, registerBrowserTools } from "./browser.js";
import { registerClarifyTools } from "./clarify.js";
import { type ExecuteCodeDeps, registerExecuteCodeTools } from "./execute-code.js";
import { registerFileTools } from "./files.js";
import { registerHomeAssistantTools } from "./homeassistant.js";
import { type ImageGenToolOptions, registerImageGenerateTools } from "./image-generate.js";
import { registerMemoryTools } from "./memory.js";
import { type MoaToolOptions, registerMoaTools } from "./moa.js";
import { registerProcessTools } from "./process.js";
import type { ReadLimits } from "./read-file.js";
import { registerSessionSearchTools } from "./session-search.js";
import { registerTerminalTools } from "./terminal.js";
import { registerTodoTools } from "./todo.js";
import { registerTtsTools, type TtsToolOptions } from "./tts.js";
import { registerVisionTools, type VisionToolOptions } from "./vision.js";
import { registerWebTools } from "./web.js";
import { registerXSearchTools, type XSearchToolOptions } from "./x-search.js";

export interface BuiltinToolsDeps {
  approvals?: ApprovalPolicy;
  processManager?: ProcessManager;
  /** `terminal.timeout` in seconds. */
  terminalTimeoutSeconds?: number;
  /** `terminal.allow_keep_alive`. */
  allowKeepAlive?: boolean;
  /** `terminal.persistent_shell` (default on). */
  persistentShell?: boolean;
  /** `web.backend`. */
  webBackend?: string;
  /** `web.allow_private_urls`. */
  webAllowPrivateUrls?: boolean;
  /** `web.search_backend`, `web.extract_backend` and `web.extract_char_limit`. */
  webSearchBackend?: string;
  webExtractBackend?: string;
  webExtractPageChars?: number;
  /** `security.website_blocklist`, when enabled. */
  websiteBlocklist?: WebsiteBlocklist | null;
  /** `tool_output.max_bytes`: terminal output kept for the model. */
  terminalOutputChars?: number;
  /** `tool_output.max_lines`, `tool_output.max_line_length` and `file_read_max_chars`. */
  readLimits?: ReadLimits;
  /** Language-server diagnostics after write_file and patch (`lsp.*`), from the runtime. */
  diagnose?: DiagnoseHook;
  /** `code_execution.timeout` (seconds), `max_tool_calls` and `mode`. */
  codeExecution?: Pick<ExecuteCodeDeps, "timeoutSeconds" | "maxToolCalls" | "mode">;
  /** `tts.*`, HERMES_HOME and the HTTP client for text_to_speech. */
  tts?: TtsToolOptions;
  /** `image_gen.*`, HERMES_HOME and the HTTP client for image_generate. */
  imageGen?: ImageGenToolOptions;
  /** The backend and trace folder of mixture_of_agents (`moa.*`, `auxiliary.moa_*`). */
  moa?: MoaToolOptions;
  /** The vision model and `auxiliary.vision.download_timeout` for vision_analyze. */
  vision?: Pick<VisionToolOptions, "analyze" | "downloadTimeoutSeconds">;
  /** `x_search.*` and the HTTP client for x_search. */
  xSearch?: XSearchToolOptions;
  /** The runtime's browser (`browser.*`), which it closes; without one, a default one is made. */
  browser?: BrowserTools;
}

export function registerBuiltinTools(registry: ToolRegistry, deps: BuiltinToolsDeps = {}): void {
  const processManager = deps.processManager ?? defaultProcessManager();
  registerTerminalTools(registry, {
    processManager,
    ...(deps.approvals ? { approvals: deps.approvals } : {}),
    ...(deps.terminalTimeoutSeconds ? { defaultTimeoutSeconds: deps.terminalTimeoutSeconds } : {}),
    ...(deps.allowKeepAlive ? { allowKeepAlive: true } : {}),
    ...(deps.persistentShell === false ? { persistentShell: false } : {}),
    ...(deps.terminalOutputChars ? { maxOutputChars: deps.terminalOutputChars } : {}),
  });
  registerProcessTools(registry, { processManager, ...(deps.approvals ? { approvals: deps.approvals } : {}) });
  registerFileTools(registry, {
    ...(deps.readLimits ? { read: deps.readLimits } : {}),
    ...(deps.diagnose ? { diagnose: deps.diagnose } : {}),
  });
  registerTodoTools(registry);
  registerClarifyTools(registry);
  registerMemoryTools(registry);
  registerSessionSearchTools(registry);
  registerWebTools(registry, {
    ...(deps.webBackend ? { backend: deps.webBackend } : {}),
    ...(deps.webAllowPrivateUrls ? { allowPrivateUrls: true } : {}),
    ...(deps.websiteBlocklist ? { blocklist: deps.websiteBlocklist } : {}),
    ...(deps.webSearchBackend ? { searchBackend: deps.webSearchBackend } : {}),
    ...(deps.webExtractBackend ? { extractBackend: deps.webExtractBackend } : {}),
    ...(deps.webExtractPageChars ? { extractPageChars: deps.webExtractPageChars } : {}),
  });
  registerExecuteCodeTools(registry, deps.codeExecution ?? {});
  registerTtsTools(registry, deps.tts ?? {});
  registerHomeAssistantTools(registry);
  registerImageGenerateTools(registry, deps.imageGen ?? {});
  registerMoaTools(registry, deps.moa ?? {});
  registerXSearchTools(registry, deps.xSearch ?? {});
  registerVisionTools(registry, {
    ...deps.vision,
    ...(deps.webAllowPrivateUrls ? { allowPrivateUrls: true } : {}),
    ...(deps.websiteBlocklist ? { blocklist: deps.websiteBlocklist } : {}),
  });
  registerBrowserTools(
    registry,
    deps.browser ??
      new BrowserTools({
        ...(deps.websiteBlocklist ? { blocklist: deps.websiteBlocklist } : {}),
        ...(deps.vision?.analyze ? { analyze: deps.vision.analyze } : {}),
      }),
  );
}
