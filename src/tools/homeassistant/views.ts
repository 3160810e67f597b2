/**
 * Compact views of what Home Assistant answers, sized for a model: entity lists, one entity's
 * state, service catalogues and the states a service call changed. Malformed entries are skipped.
 */
import { isRefusedDomain } from "./guards.js";

/** Entities one ha_list_entities call shows at most. */
export const MAX_LISTED_ENTITIES = 200;
/** Changed states one ha_call_service result shows at most. */
const MAX_CHANGED_STATES = 50;
const MAX_TEXT = 160;

export interface HaState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed?: string;
  last_updated?: string;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function short(value: unknown, max = MAX_TEXT): string {
  const text = typeof value === "string" ? value.replaceAll(/\s+/g, " ").trim() : "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function toState(value: unknown): HaState | null {
  const raw = record(value);
  if (typeof raw.entity_id !== "string") return null;
  return {
    entity_id: raw.entity_id,
    state: typeof raw.state === "string" ? raw.state : String(raw.state ?? ""),
    attributes: record(raw.attributes),
    ...(typeof raw.last_changed === "string" ? { last_changed: raw.last_changed } : {}),
    ...(typeof raw.last_updated === "string" ? { last_updated: raw.last_updated } : {}),
  };
}

export function toStates(value: unknown): HaState[] {
  return (Array.isArray(value) ? value : []).flatMap((entry) => toState(entry) ?? []);
}

function friendlyName(state: HaState): string {
  return short(state.attributes.friendly_name) || state.entity_id;
}

/** Lower case, underscores as spaces: "Living Room" matches `light.living_room_lamp`. */
function normalize(text: string): string {
  return text.toLowerCase().replaceAll("_", " ").replaceAll(/\s+/g, " ").trim();
}

function matchesArea(state: HaState, area: string): boolean {
  const wanted = normalize(area);
  const haystacks = [state.entity_id, friendlyName(state), state.attributes.area, state.attributes.area_id];
  return haystacks.some((text) => typeof text === "string" && normalize(text).includes(wanted));
}

function entityLine(state: HaState): Record<string, string> {
  const unit = short(state.attributes.unit_of_measurement, 20);
  return {
    entity_id: state.entity_id,
    name: friendlyName(state),
    state: short(state.state, 100),
    ...(unit ? { unit } : {}),
  };
}

export function listEntities(
  states: HaState[],
  filter: { domain?: string; area?: string },
  limit = MAX_LISTED_ENTITIES,
): Record<string, unknown> {
  const area = filter.area?.trim();
  const matching = states
    .filter((state) => !filter.domain || state.entity_id.startsWith(`${filter.domain}.`))
    .filter((state) => !area || matchesArea(state, area))
    .sort((a, b) => a.entity_id.localeCompare(b.entity_id));
  const shown = matching.slice(0, limit);
  const omitted = matching.length - shown.length;
  return {
    count: shown.length,
    ...(omitted > 0
      ? { omitted, note: `${omitted} more entities match; give a domain or area to narrow the list.` }
      : {}),
    entities: shown.map(entityLine),
  };
}

export function stateView(state: HaState): Record<string, unknown> {
  return {
    entity_id: state.entity_id,
    name: friendlyName(state),
    state: state.state,
    attributes: state.attributes,
    ...(state.last_changed ? { last_changed: state.last_changed } : {}),
    ...(state.last_updated ? { last_updated: state.last_updated } : {}),
  };
}

export function changedView(value: unknown): Record<string, unknown> {
  const changed = toStates(value);
  const shown = changed.slice(0, MAX_CHANGED_STATES).map((state) => ({
    ...entityLine(state),
    ...(state.last_changed ? { last_changed: state.last_changed } : {}),
  }));
  const omitted = changed.length - shown.length;
  return { changed: shown, ...(omitted > 0 ? { changed_omitted: omitted } : {}) };
}

interface DomainServices {
  domain: string;
  services: Record<string, unknown>;
}

function toDomains(value: unknown): DomainServices[] {
  return (Array.isArray(value) ? value : []).flatMap((entry) => {
    const raw = record(entry);
    if (typeof raw.domain !== "string") return [];
    // Old servers list service names; current ones map each name to its description.
    const services = Array.isArray(raw.services)
      ? Object.fromEntries(raw.services.filter((s) => typeof s === "string").map((s) => [s, {}]))
      : record(raw.services);
    return [{ domain: raw.domain, services }];
  });
}

/** A selector's kind, with a select's first options: `[number]`, `[select: on, off]`. */
function selectorHint(selector: unknown): string {
  const [kind, settings] = Object.entries(record(selector))[0] ?? [];
  if (!kind) return "";
  const options = Array.isArray(record(settings).options) ? (record(settings).options as unknown[]) : [];
  const names = options
    .slice(0, 8)
    .map((option) => (typeof option === "string" ? option : short(record(option).value, 40)))
    .filter(Boolean);
  return names.length > 0 ? ` [${kind}: ${names.join(", ")}${options.length > 8 ? ", …" : ""}]` : ` [${kind}]`;
}

/** Field name → one line; fields grouped in a collapsible section are listed as if flat. */
function fieldLines(fields: Record<string, unknown>, into: Record<string, string> = {}): Record<string, string> {
  for (const [name, value] of Object.entries(fields)) {
    const field = record(value);
    if (field.fields && typeof field.fields === "object") {
      fieldLines(record(field.fields), into);
      continue;
    }
    const text = short(field.description) || short(field.name);
    into[name] = `${field.required === true ? "(required) " : ""}${text}${selectorHint(field.selector)}`.trim();
  }
  return into;
}

/**
 * Without a domain: each domain's service names. With one: each of its services' description,
 * whether it takes a target entity, and its fields.
 */
export function servicesView(value: unknown, domain?: string): Record<string, unknown> {
  const domains = toDomains(value);
  const refused = domains.filter((d) => isRefusedDomain(d.domain)).map((d) => d.domain);
  if (!domain) {
    const listed = domains
      .filter((d) => !isRefusedDomain(d.domain))
      .sort((a, b) => a.domain.localeCompare(b.domain))
      .map((d) => [d.domain, Object.keys(d.services).sort()]);
    return {
      domains: Object.fromEntries(listed),
      ...(refused.length > 0 ? { not_callable: refused } : {}),
      hint: "Call ha_list_services with a domain for each service's description and fields.",
    };
  }
  const found = domains.find((d) => d.domain === domain);
  if (!found) {
    return {
      error: `Home Assistant has no services in domain "${domain}"; ha_list_services without a domain lists the domains.`,
    };
  }
  const services = Object.entries(found.services)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => {
      const service = record(value);
      const description = short(service.description) || short(service.name);
      const fields = fieldLines(record(service.fields));
      return [
        name,
        {
          ...(description ? { description } : {}),
          ...(service.target ? { target: "entity_id" } : {}),
          ...(Object.keys(fields).length > 0 ? { fields } : {}),
        },
      ];
    });
  return {
    domain,
    ...(isRefusedDomain(domain) ? { not_callable: "ha_call_service refuses this domain." } : {}),
    services: Object.fromEntries(services),
  };
}
