/**
 * The Home Assistant toolset (`homeassistant`): list entities, read one entity's state, list the
 * services, and call one, over the REST API of the server HASS_URL names with the HASS_TOKEN
 * token. Both are read at call time; without a token the tools report themselves unavailable.
 * The HTTP client and the views load on the first call.
 */
import { z } from "../../util/schema/index.js";
import { HA_ENTITY_ID, HA_NAME, isRefusedDomain, refusalMessage } from "../homeassistant/guards.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

type Env = Record<string, string | undefined>;

/** JSON characters of one service call's `data` at most. */
const MAX_SERVICE_DATA_CHARS = 16_000;

export interface HomeAssistantToolOptions {
  /** Where HASS_TOKEN and HASS_URL are read, at call time (default process.env). */
  env?: () => Env;
  /** Deadline of one request in ms (default 15 s). */
  timeoutMs?: number;
  /** Bytes of one answer read at most (default 8 MiB). */
  maxResponseBytes?: number;
}

/** Models sometimes send an object argument as a JSON string. */
function parsedIfJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export const haListEntitiesParameters = z.object({
  domain: z.string().optional().describe("Entity domain, e.g. light, switch, sensor, climate"),
  area: z.string().optional().describe("Text to find in the entity's name or area, e.g. kitchen"),
});

export const haGetStateParameters = z.object({
  entity_id: z.string().describe("e.g. light.kitchen"),
});

export const haListServicesParameters = z.object({
  domain: z.string().optional().describe("Only this domain, with each service's fields"),
});

export const haCallServiceParameters = z.object({
  domain: z.string().describe("e.g. light"),
  service: z.string().describe("e.g. turn_on"),
  entity_id: z.string().optional().describe("Target entity, e.g. light.kitchen"),
  data: z
    .preprocess(parsedIfJson, z.record(z.string(), z.unknown()))
    .optional()
    .describe('Service fields, e.g. {"brightness": 128}'),
});

function currentEnv(options: HomeAssistantToolOptions): Env {
  return options.env ? options.env() : process.env;
}

function hasToken(options: HomeAssistantToolOptions): boolean {
  return Boolean(currentEnv(options).HASS_TOKEN?.trim());
}

const failed = (error: string) => JSON.stringify({ error });

function badDomain(domain: string): string | null {
  return HA_NAME.test(domain)
    ? null
    : `"${domain.slice(0, 80)}" is not a Home Assistant domain: use lower-case letters, digits and underscores, e.g. light.`;
}

function badEntityId(entityId: string): string | null {
  return HA_ENTITY_ID.test(entityId)
    ? null
    : `"${entityId.slice(0, 80)}" is not an entity id: use <domain>.<name> in lower case, e.g. light.kitchen (ha_list_entities lists them).`;
}

/**
 * Runs `work` with a client for the configured server; any failure comes back as `{error}`.
 * The result passes through the client's scrubber, so the token never reaches the model.
 */
async function withClient(
  options: HomeAssistantToolOptions,
  work: (
    client: import("../homeassistant/client.js").HaClient,
    views: typeof import("../homeassistant/views.js"),
  ) => Promise<Record<string, unknown>>,
): Promise<string> {
  const { HaClient, HaError, connectionFromEnv } = await import("../homeassistant/client.js");
  const setup = connectionFromEnv(currentEnv(options));
  if (!setup.ok) return failed(setup.error);
  const client = new HaClient(setup.connection, {
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
  });
  try {
    const views = await import("../homeassistant/views.js");
    return client.clean(JSON.stringify(await work(client, views)));
  } catch (error) {
    const message = error instanceof HaError ? error.message : `Home Assistant call failed: ${String(error)}`;
    return failed(client.clean(message));
  }
}

export async function haListEntitiesTool(
  args: z.infer<typeof haListEntitiesParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: HomeAssistantToolOptions = {},
): Promise<string> {
  const domain = args.domain?.trim().toLowerCase() || undefined;
  const invalid = domain ? badDomain(domain) : null;
  if (invalid) return failed(invalid);
  return withClient(options, async (client, views) =>
    views.listEntities(views.toStates(await client.states(ctx.signal)), {
      ...(domain ? { domain } : {}),
      ...(args.area?.trim() ? { area: args.area.trim() } : {}),
    }),
  );
}

export async function haGetStateTool(
  args: z.infer<typeof haGetStateParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: HomeAssistantToolOptions = {},
): Promise<string> {
  const entityId = args.entity_id.trim();
  const invalid = badEntityId(entityId);
  if (invalid) return failed(invalid);
  return withClient(options, async (client, views) => {
    const state = views.toState(await client.state(entityId, ctx.signal));
    if (!state) return { error: `Home Assistant answered without a state for ${entityId}.` };
    return views.stateView(state);
  });
}

export async function haListServicesTool(
  args: z.infer<typeof haListServicesParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: HomeAssistantToolOptions = {},
): Promise<string> {
  const domain = args.domain?.trim().toLowerCase() || undefined;
  const invalid = domain ? badDomain(domain) : null;
  if (invalid) return failed(invalid);
  return withClient(options, async (client, views) => views.servicesView(await client.services(ctx.signal), domain));
}

export async function haCallServiceTool(
  args: z.infer<typeof haCallServiceParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: HomeAssistantToolOptions = {},
): Promise<string> {
  const domain = args.domain.trim();
  const service = args.service.trim();
  const invalid =
    badDomain(domain) ??
    (HA_NAME.test(service) ? null : `"${service.slice(0, 80)}" is not a service name: use e.g. turn_on.`) ??
    (args.entity_id ? badEntityId(args.entity_id.trim()) : null);
  if (invalid) return failed(invalid);
  if (isRefusedDomain(domain)) return failed(refusalMessage(domain));
  const data: Record<string, unknown> = { ...(args.data ?? {}) };
  if (args.entity_id) {
    const entityId = args.entity_id.trim();
    if (data.entity_id !== undefined && data.entity_id !== entityId) {
      return failed("entity_id is given both as an argument and in data; give it once.");
    }
    data.entity_id = entityId;
  }
  if (JSON.stringify(data).length > MAX_SERVICE_DATA_CHARS) {
    return failed(`data is larger than ${MAX_SERVICE_DATA_CHARS} characters of JSON; send less.`);
  }
  return withClient(options, async (client, views) => {
    const result = await client.callService(domain, service, data, ctx.signal);
    return {
      success: true,
      service: `${domain}.${service}`,
      ...views.changedView(result.changed),
      ...(result.response !== undefined ? { response: result.response } : {}),
    };
  });
}

export function registerHomeAssistantTools(registry: ToolRegistry, options: HomeAssistantToolOptions = {}): void {
  const common = { toolset: "homeassistant", check: () => hasToken(options), untrustedOutput: true, emoji: "🏠" };
  registry.register({
    ...common,
    name: "ha_list_entities",
    description:
      "List Home Assistant entities (lights, switches, sensors, ...), optionally by domain and by " +
      "area or name. Returns each entity's id, name and state.",
    parameters: haListEntitiesParameters,
    handler: (args, ctx) => haListEntitiesTool(args, ctx, options),
    parallelSafe: true,
  });
  registry.register({
    ...common,
    name: "ha_get_state",
    description: "Read one Home Assistant entity. Returns its state, attributes and when it last changed.",
    parameters: haGetStateParameters,
    handler: (args, ctx) => haGetStateTool(args, ctx, options),
    parallelSafe: true,
    maxResultChars: 30_000,
  });
  registry.register({
    ...common,
    name: "ha_list_services",
    description:
      "List the Home Assistant services (actions) that can be called. Returns service names per " +
      "domain; with a domain, each service's description and fields.",
    parameters: haListServicesParameters,
    handler: (args, ctx) => haListServicesTool(args, ctx, options),
    parallelSafe: true,
  });
  registry.register({
    ...common,
    name: "ha_call_service",
    description:
      "Call a Home Assistant service to control devices, e.g. light.turn_on with entity_id " +
      "light.kitchen. Returns the entities whose state changed.",
    parameters: haCallServiceParameters,
    handler: (args, ctx) => haCallServiceTool(args, ctx, options),
  });
}
