/**
 * The auxiliary client for a curator run outside a runtime (`hermes curator run`): the model
 * configured for the `curator` task, with the main model (as a runtime would choose it) first
 * under `auto` and as the last resort. Nothing else of a runtime (tools, MCP servers, the
 * session store) is opened.
 */
import { type AuxiliaryClient, createAuxiliaryClient } from "../../agent/auxiliary.js";
import { resolveRoutes } from "../../agent/options.js";
import type { HermesConfig } from "../../state/config-schema.js";
import { loadCredentialPool } from "../credentials.js";
import { chooseModel } from "../model-choice.js";

export async function curatorAuxiliaryClient(
  home: string,
  config: HermesConfig,
  notice: (message: string) => void,
): Promise<AuxiliaryClient> {
  let mainRoute: Awaited<ReturnType<typeof resolveRoutes>>[number] | undefined;
  try {
    const choice = await chooseModel(config, {}, { notice });
    const credentialPool = loadCredentialPool(home, choice.info.id, config, process.env);
    [mainRoute] = await resolveRoutes({
      model: choice.model,
      provider: choice.info.id,
      ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
      ...(choice.apiMode ? { apiMode: choice.apiMode } : {}),
      ...(credentialPool ? { credentialPool } : {}),
      firstByteTimeoutMs: Math.round(config.agent.first_byte_timeout * 1000),
    });
  } catch (error) {
    // auxiliary.curator may name a provider of its own; without one the task reports the failure.
    notice(`no main model for the curator task: ${error instanceof Error ? error.message : String(error)}`);
  }
  return createAuxiliaryClient({
    config,
    ...(mainRoute ? { mainRoute } : {}),
    env: process.env,
    onNotice: notice,
  });
}
