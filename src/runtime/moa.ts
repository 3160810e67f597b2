/**
 * What the mixture_of_agents tool needs from the process: `moa.*` presets resolved into routes
 * (src/runtime/moa-routes.ts), transports from the provider catalog, and per request the
 * `auxiliary.moa_*` time limit and extra request fields.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { collect } from "../llm/normalize.js";
import { createTransport } from "../llm/providers.js";
import type { Transport } from "../llm/types.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { MoaToolOptions } from "../tools/builtin/moa.js";
import { type MoaBackend, type MoaPlan, type MoaRequest, MoaSetupError } from "../tools/moa/types.js";
import { loadCredentialPool } from "./credentials.js";
import { type Env, type MoaEndpoint, type MoaRouteResolution, type MoaTask, resolveMoaRoute } from "./moa-routes.js";

export interface MoaBackendOptions {
  config: HermesConfig;
  home: string;
  /** Where keys and base URLs are read, at call time (default process.env). */
  env?: () => Env;
  /** Builds the transport of an endpoint (default: the provider catalog's). */
  createTransport?: (endpoint: MoaEndpoint, env: Env) => Promise<Transport>;
}

const taskOf = (role: MoaRequest["role"]): MoaTask => (role === "reference" ? "moa_reference" : "moa_aggregator");

function defaultTransport(endpoint: MoaEndpoint, env: Env): Promise<Transport> {
  return createTransport({
    provider: endpoint.provider,
    model: endpoint.model,
    ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    env,
  });
}

const labelOf = (resolution: MoaRouteResolution) => (resolution.ok ? resolution.endpoint.label : resolution.label);

/** The same model asked twice gets `#2`, so results and traces tell the two apart. */
function withDistinctLabels(resolutions: MoaRouteResolution[]): MoaRouteResolution[] {
  const seen = new Map<string, number>();
  return resolutions.map((resolution) => {
    const label = labelOf(resolution);
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    if (count === 1) return resolution;
    const distinct = `${label}#${count}`;
    return resolution.ok
      ? { ok: true, endpoint: { ...resolution.endpoint, label: distinct } }
      : { ...resolution, label: distinct };
  });
}

export function createMoaBackend(options: MoaBackendOptions): MoaBackend<MoaEndpoint> {
  const { config, home } = options;
  const moa = config.moa;
  const currentEnv = options.env ?? (() => process.env);
  const build = options.createTransport ?? defaultTransport;
  const transports = new Map<string, Promise<Transport>>();

  const storedKey = (env: Env) => (providerId: string) => {
    try {
      const pool = loadCredentialPool(home, providerId, config, env);
      return (pool?.current() ?? pool?.select())?.accessToken;
    } catch {
      // A broken auth.json is reported where the main model starts; here it only means no stored key.
      return undefined;
    }
  };

  const presetFor = (name: string | undefined) => {
    const chosen = name ?? (moa.active_preset || moa.default_preset);
    const names = Object.keys(moa.presets);
    const preset = Object.hasOwn(moa.presets, chosen) ? moa.presets[chosen] : undefined;
    if (!preset) {
      throw new MoaSetupError(`unknown preset "${chosen}"; the presets under moa.presets are: ${names.join(", ")}`);
    }
    if (!preset.enabled) {
      const others = names.filter((other) => other !== chosen && moa.presets[other]?.enabled);
      throw new MoaSetupError(
        `preset "${chosen}" is disabled (moa.presets.${chosen}.enabled: false): turn it on with ` +
          `\`hermes config set moa.presets.${chosen}.enabled true\`` +
          (others.length > 0 ? `, or pass preset: ${others.join(" or ")}` : ""),
      );
    }
    return { name: chosen, preset };
  };

  const resolveReferences = (name: string, env: Env) =>
    withDistinctLabels(
      moa.presets[name]!.reference_models.map((entry, i) =>
        resolveMoaRoute(entry, {
          task: "moa_reference",
          settings: config.auxiliary.moa_reference,
          source: `moa.presets.${name}.reference_models[${i}]`,
          env,
          storedKey: storedKey(env),
        }),
      ),
    );

  function plan(name?: string): MoaPlan<MoaEndpoint> {
    const env = currentEnv();
    const chosen = presetFor(name);
    const references = resolveReferences(chosen.name, env);
    const aggregator = resolveMoaRoute(chosen.preset.aggregator, {
      task: "moa_aggregator",
      settings: config.auxiliary.moa_aggregator,
      source: `moa.presets.${chosen.name}.aggregator`,
      env,
      storedKey: storedKey(env),
    });
    const usable = references.flatMap((r) => (r.ok ? [r.endpoint] : []));
    const unusable = references.flatMap((r) => (r.ok ? [] : [{ model: r.label, error: r.problem }]));
    if (!aggregator.ok || usable.length === 0) {
      const problems = [
        ...(aggregator.ok ? [] : [`aggregator ${aggregator.label}: ${aggregator.problem}`]),
        ...(usable.length === 0 ? unusable.map((u) => `reference model ${u.model}: ${u.error}`) : []),
      ];
      throw new MoaSetupError(`preset "${chosen.name}" cannot run:\n- ${problems.join("\n- ")}`);
    }
    const referenceCap = config.auxiliary.moa_reference.max_tokens;
    const aggregatorCap = config.auxiliary.moa_aggregator.max_tokens;
    return {
      preset: chosen.name,
      references: usable,
      unusable,
      aggregator: aggregator.endpoint,
      referenceTemperature: chosen.preset.reference_temperature,
      aggregatorTemperature: chosen.preset.aggregator_temperature,
      referenceMaxTokens: referenceCap > 0 ? referenceCap : chosen.preset.max_tokens,
      aggregatorMaxTokens: aggregatorCap > 0 ? aggregatorCap : chosen.preset.max_tokens,
    };
  }

  const transportOf = (endpoint: MoaEndpoint, env: Env): Promise<Transport> => {
    const key = `${endpoint.provider}|${endpoint.baseUrl ?? ""}|${endpoint.apiKey ?? ""}`;
    let transport = transports.get(key);
    if (!transport) {
      transport = build(endpoint, env);
      transports.set(key, transport);
      transport.catch(() => transports.delete(key));
    }
    return transport;
  };

  async function ask(request: MoaRequest<MoaEndpoint>): Promise<string> {
    const task = taskOf(request.role);
    const { timeout, extra_body: extraBody } = config.auxiliary[task];
    const limit = timeout > 0 ? AbortSignal.timeout(timeout * 1000) : undefined;
    const signal = limit ? AbortSignal.any([request.signal, limit]) : request.signal;
    const transport = await transportOf(request.route, currentEnv());
    const llmRequest = {
      model: request.route.model,
      messages: request.messages,
      temperature: request.temperature,
      maxTokens: request.maxTokens,
      ...(Object.keys(extraBody).length > 0 ? { extraBody } : {}),
    };
    let text: string;
    try {
      text = (await collect(transport.stream(llmRequest, signal))).text;
    } catch (error) {
      if (limit?.aborted && !request.signal.aborted) {
        throw new Error(`no answer within ${timeout}s (auxiliary.${task}.timeout)`, { cause: error });
      }
      throw error;
    }
    if (!text.trim()) throw new Error("the model returned an empty reply");
    return text;
  }

  function available(): boolean {
    const name = moa.active_preset || moa.default_preset;
    const preset = Object.hasOwn(moa.presets, name) ? moa.presets[name] : undefined;
    if (!preset?.enabled) return false;
    return resolveReferences(name, currentEnv()).some((r) => r.ok);
  }

  return { plan, ask, available };
}

/** `moa.trace_dir`: "" is $HERMES_HOME/moa_traces, `~/` is the user's home, a relative path is under $HERMES_HOME. */
export function moaTraceDir(traceDir: string, home: string): string {
  const dir = traceDir.trim();
  if (!dir) return join(home, "moa_traces");
  if (dir === "~" || dir.startsWith("~/")) return join(homedir(), dir.slice(1));
  return isAbsolute(dir) ? dir : join(home, dir);
}

/** The mixture_of_agents tool's options for a runtime on `home`. */
export function moaToolOptions(config: HermesConfig, home: string, env?: () => Env): MoaToolOptions {
  return {
    backend: createMoaBackend({ config, home, ...(env ? { env } : {}) }),
    ...(config.moa.save_traces ? { traceDir: moaTraceDir(config.moa.trace_dir, home) } : {}),
  };
}
