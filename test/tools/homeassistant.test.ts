import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, test } from "node:test";
import { registerHomeAssistantTools } from "../../src/tools/builtin/homeassistant.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import { connectionFromEnv, DEFAULT_HASS_URL } from "../../src/tools/homeassistant/client.js";
import { REFUSED_SERVICE_DOMAINS } from "../../src/tools/homeassistant/guards.js";
import { classifyToolCall, PermissionGate } from "../../src/tools/permissions/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { makeContext, tempDir } from "./tool-harness.js";

const TOKEN = "hass-test-token-5c1d9e7a";

// ---- a fake Home Assistant: the REST endpoints the tools use, with faults on chosen entities ----

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface FakeState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
  last_updated: string;
}

function entity(entityId: string, state: string, attributes: Record<string, unknown> = {}): FakeState {
  const at = "2026-01-05T10:00:00+00:00";
  return { entity_id: entityId, state, attributes, last_changed: at, last_updated: at };
}

function homeStates(): FakeState[] {
  return [
    entity("light.kitchen", "off", { friendly_name: "Kitchen Ceiling", supported_color_modes: ["brightness"] }),
    entity("light.living_room", "on", { friendly_name: "Living Room Lamp", brightness: 200 }),
    entity("switch.coffee_maker", "off", { friendly_name: "Coffee Maker" }),
    entity("sensor.kitchen_temperature", "21.5", { friendly_name: "Kitchen Temperature", unit_of_measurement: "°C" }),
    entity("weather.home", "sunny", { friendly_name: "Home" }),
  ];
}

const SERVICES = [
  {
    domain: "light",
    services: {
      turn_on: {
        name: "Turn on",
        description: "Turns on one or more lights and adjusts their properties.",
        target: { entity: [{ domain: ["light"] }] },
        fields: {
          brightness: { description: "Brightness from 0 to 255.", selector: { number: { min: 0, max: 255 } } },
          effect: { description: "Light effect.", selector: { select: { options: ["colorloop", "random"] } } },
          advanced_fields: {
            collapsed: true,
            fields: { transition: { description: "Seconds the change takes.", selector: { number: {} } } },
          },
        },
      },
      turn_off: { name: "Turn off", description: "Turns off one or more lights.", target: {}, fields: {} },
    },
  },
  {
    domain: "notify",
    services: {
      mobile_app_phone: {
        description: "Sends a notification to the phone.",
        fields: { message: { description: "Message body.", required: true, selector: { text: {} } } },
      },
    },
  },
  { domain: "shell_command", services: { reboot_nas: { description: "Runs a command.", fields: {} } } },
  { domain: "weather", services: { get_forecasts: { description: "Gets weather forecasts.", fields: {} } } },
];

const FORECAST = { "weather.home": { forecast: [{ datetime: "2026-01-06", temperature: 4 }] } };

let states: FakeState[] = homeStates();
let seen: Seen[] = [];
const held: ServerResponse[] = [];
let onHeld: (() => void) | undefined;
let ha: Server;
let elsewhere: Server;
let base = "";
let elsewhereBase = "";
let elsewhereHits = 0;

function reply(res: ServerResponse, status: number, body: unknown, type = "application/json"): void {
  res.writeHead(status, { "content-type": type }).end(typeof body === "string" ? body : JSON.stringify(body));
}

function serve(method: string, path: string, query: string, body: unknown, res: ServerResponse): unknown {
  if (method === "GET" && path === "/api/states") return reply(res, 200, states);
  if (method === "GET" && path === "/api/services") return reply(res, 200, SERVICES);
  const stateMatch = /^\/api\/states\/(.+)$/.exec(path);
  if (method === "GET" && stateMatch) {
    const id = decodeURIComponent(stateMatch[1]!);
    if (id === "sensor.slow") {
      held.push(res);
      onHeld?.();
      return;
    }
    if (id === "sensor.broken") return reply(res, 500, { message: `database locked near ${TOKEN}` });
    if (id === "sensor.moved") {
      res.writeHead(302, { location: `${elsewhereBase}/api/states/light.kitchen` }).end();
      return;
    }
    if (id === "sensor.huge") return reply(res, 200, entity(id, "on", { blob: "x".repeat(200_000) }));
    const found = states.find((s) => s.entity_id === id);
    return found ? reply(res, 200, found) : reply(res, 404, { message: "Entity not found." });
  }
  const serviceMatch = /^\/api\/services\/([^/]+)\/([^/]+)$/.exec(path);
  if (method === "POST" && serviceMatch) {
    const [domain, service] = [serviceMatch[1]!, serviceMatch[2]!];
    const data = (body ?? {}) as Record<string, unknown>;
    if (domain === "weather" && service === "get_forecasts") {
      if (!/(^|&)return_response(=|&|$)/.test(query)) {
        return reply(res, 400, {
          message:
            "Service call requires responses but caller did not ask for responses. Add ?return_response to query parameters.",
        });
      }
      return reply(res, 200, { changed_states: [], service_response: FORECAST });
    }
    if (domain === "light" && (service === "turn_on" || service === "turn_off")) {
      const target = states.find((s) => s.entity_id === data.entity_id);
      if (!target) return reply(res, 200, []);
      target.state = service === "turn_on" ? "on" : "off";
      if (typeof data.brightness === "number") target.attributes.brightness = data.brightness;
      target.last_changed = "2026-01-05T10:05:00+00:00";
      return reply(res, 200, [target]);
    }
    if (domain === "notify") return reply(res, 200, []);
    // Home Assistant answers an unknown service with a bare 400.
    return reply(res, 400, "400: Bad Request", "text/plain");
  }
  reply(res, 404, "404: Not Found", "text/plain");
}

before(async () => {
  ha = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const body = raw ? (JSON.parse(raw) as unknown) : undefined;
      const [path = "", query = ""] = (req.url ?? "").split("?");
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(res, 401, "401: Unauthorized", "text/plain");
      serve(req.method ?? "", path, query, body, res);
    });
  });
  elsewhere = createServer((_req, res) => {
    elsewhereHits++;
    reply(res, 200, entity("light.kitchen", "off"));
  });
  await new Promise<void>((resolve) => ha.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(ha.address() as AddressInfo).port}`;
  elsewhereBase = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});

after(async () => {
  for (const res of held) res.destroy();
  ha.closeAllConnections();
  elsewhere.closeAllConnections();
  await new Promise<void>((resolve) => ha.close(() => resolve()));
  await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
});

beforeEach(() => {
  states = homeStates();
  seen = [];
  elsewhereHits = 0;
});

// ---- helpers ----

function tools(env: Record<string, string | undefined> = { HASS_TOKEN: TOKEN, HASS_URL: base }, extra = {}) {
  const registry = new ToolRegistry();
  registerHomeAssistantTools(registry, { env: () => env, ...extra });
  return registry;
}

/** Runs a tool the way the agent does and checks the token is nowhere in what it answers. */
async function call(
  registry: ToolRegistry,
  name: string,
  args: unknown,
  signal = new AbortController().signal,
): Promise<Record<string, unknown>> {
  const spec = registry.get(name);
  assert.ok(spec, `${name} is registered`);
  const text = await spec.handler(spec.parameters.parse(args), makeContext(tempDir("ha"), { signal }));
  assert.ok(!text.includes(TOKEN), `the token leaked into ${name}'s result: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function errorOf(result: Record<string, unknown>): string {
  assert.equal(typeof result.error, "string", `expected an error, got ${JSON.stringify(result)}`);
  return result.error as string;
}

// ---- tests ----

test("ha_list_entities lists ids, names and states, filtered by domain and by area or name", async () => {
  const registry = tools();
  const all = await call(registry, "ha_list_entities", {});
  assert.equal(all.count, 5);
  assert.deepEqual((all.entities as Array<{ entity_id: string }>)[0], {
    entity_id: "light.kitchen",
    name: "Kitchen Ceiling",
    state: "off",
  });
  assert.equal(seen[0]?.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(seen[0]?.url, "/api/states");

  const lights = await call(registry, "ha_list_entities", { domain: "light" });
  assert.deepEqual(
    (lights.entities as Array<{ entity_id: string }>).map((e) => e.entity_id),
    ["light.kitchen", "light.living_room"],
  );

  const kitchen = await call(registry, "ha_list_entities", { area: "KITCHEN" });
  assert.deepEqual(
    (kitchen.entities as Array<{ entity_id: string }>).map((e) => e.entity_id),
    ["light.kitchen", "sensor.kitchen_temperature"],
  );
  const temperature = (kitchen.entities as Array<Record<string, string>>)[1];
  assert.equal(temperature?.unit, "°C");

  const livingRoom = await call(registry, "ha_list_entities", { domain: "light", area: "living room" });
  assert.deepEqual(
    (livingRoom.entities as Array<{ entity_id: string }>).map((e) => e.entity_id),
    ["light.living_room"],
  );
});

test("ha_list_entities shows at most 200 entities and says how many were left out", async () => {
  states = Array.from({ length: 230 }, (_, i) => entity(`sensor.probe_${String(i).padStart(3, "0")}`, String(i)));
  const result = await call(tools(), "ha_list_entities", { domain: "sensor" });
  assert.equal(result.count, 200);
  assert.equal((result.entities as unknown[]).length, 200);
  assert.equal(result.omitted, 30);
  assert.match(result.note as string, /30 more entities match/);
});

test("ha_get_state returns the state, attributes and last change of one entity", async () => {
  const result = await call(tools(), "ha_get_state", { entity_id: "sensor.kitchen_temperature" });
  assert.equal(result.state, "21.5");
  assert.equal(result.name, "Kitchen Temperature");
  assert.deepEqual(result.attributes, { friendly_name: "Kitchen Temperature", unit_of_measurement: "°C" });
  assert.equal(result.last_changed, "2026-01-05T10:00:00+00:00");
  assert.equal(seen.at(-1)?.url, "/api/states/sensor.kitchen_temperature");
});

test("an unknown entity is a 404 the tool explains", async () => {
  const error = errorOf(await call(tools(), "ha_get_state", { entity_id: "light.garage" }));
  assert.match(error, /no entity "light\.garage"/);
  assert.match(error, /ha_list_entities/);
});

test("ha_list_services lists service names per domain, and fields with descriptions for one domain", async () => {
  const registry = tools();
  const all = await call(registry, "ha_list_services", {});
  const domains = all.domains as Record<string, string[]>;
  assert.deepEqual(domains.light, ["turn_off", "turn_on"]);
  assert.deepEqual(domains.notify, ["mobile_app_phone"]);
  assert.equal(domains.shell_command, undefined, "a refused domain is not offered");
  assert.deepEqual(all.not_callable, ["shell_command"]);
  assert.match(all.hint as string, /with a domain/);

  const light = await call(registry, "ha_list_services", { domain: "light" });
  const services = light.services as Record<
    string,
    { description?: string; target?: string; fields?: Record<string, string> }
  >;
  assert.equal(services.turn_on?.description, "Turns on one or more lights and adjusts their properties.");
  assert.equal(services.turn_on?.target, "entity_id");
  assert.deepEqual(services.turn_on?.fields, {
    brightness: "Brightness from 0 to 255. [number]",
    effect: "Light effect. [select: colorloop, random]",
    transition: "Seconds the change takes. [number]",
  });
  assert.equal(services.turn_off?.fields, undefined);

  const notify = await call(registry, "ha_list_services", { domain: "notify" });
  const phone = (notify.services as Record<string, { fields: Record<string, string> }>).mobile_app_phone;
  assert.equal(phone?.fields.message, "(required) Message body. [text]");

  const none = await call(registry, "ha_list_services", { domain: "vacuum" });
  assert.match(errorOf(none), /no services in domain "vacuum"/);
});

test("ha_call_service turns a light on and returns the states Home Assistant reports changed", async () => {
  const registry = tools();
  const result = await call(registry, "ha_call_service", {
    domain: "light",
    service: "turn_on",
    entity_id: "light.kitchen",
    data: { brightness: 128 },
  });
  assert.equal(result.success, true);
  assert.equal(result.service, "light.turn_on");
  assert.deepEqual(result.changed, [
    { entity_id: "light.kitchen", name: "Kitchen Ceiling", state: "on", last_changed: "2026-01-05T10:05:00+00:00" },
  ]);
  const post = seen.find((s) => s.method === "POST");
  assert.equal(post?.url, "/api/services/light/turn_on");
  assert.equal(post?.headers["content-type"], "application/json");
  assert.deepEqual(post?.body, { brightness: 128, entity_id: "light.kitchen" });

  const after = await call(registry, "ha_get_state", { entity_id: "light.kitchen" });
  assert.equal(after.state, "on");
  assert.equal((after.attributes as Record<string, unknown>).brightness, 128);
});

test("ha_call_service accepts data sent as a JSON string and refuses a second, different entity_id", async () => {
  const registry = tools();
  const result = await call(registry, "ha_call_service", {
    domain: "light",
    service: "turn_on",
    data: '{"entity_id": "light.living_room", "brightness": 10}',
  });
  assert.equal((result.changed as Array<{ state: string }>)[0]?.state, "on");
  assert.deepEqual(seen.at(-1)?.body, { entity_id: "light.living_room", brightness: 10 });

  const before = seen.length;
  const twice = await call(registry, "ha_call_service", {
    domain: "light",
    service: "turn_on",
    entity_id: "light.kitchen",
    data: { entity_id: "light.living_room" },
  });
  assert.match(errorOf(twice), /give it once/);
  assert.equal(seen.length, before);
});

test("a service that only answers is asked again with return_response and its answer is returned", async () => {
  const result = await call(tools(), "ha_call_service", {
    domain: "weather",
    service: "get_forecasts",
    entity_id: "weather.home",
    data: { type: "daily" },
  });
  assert.equal(result.success, true);
  assert.deepEqual(result.response, FORECAST);
  assert.deepEqual(
    seen.map((s) => s.url),
    ["/api/services/weather/get_forecasts", "/api/services/weather/get_forecasts?return_response"],
  );
});

test("an unknown service comes back as a clear error naming ha_list_services", async () => {
  const error = errorOf(await call(tools(), "ha_call_service", { domain: "light", service: "explode" }));
  assert.match(error, /rejected light\.explode \(HTTP 400\)/);
  assert.match(error, /ha_list_services/);
});

test("every refused domain is refused before anything is sent", async () => {
  const registry = tools();
  for (const domain of REFUSED_SERVICE_DOMAINS) {
    const error = errorOf(await call(registry, "ha_call_service", { domain, service: "run", data: { cmd: "id" } }));
    assert.match(error, new RegExp(`"${domain}" services is not allowed`));
  }
  assert.equal(seen.length, 0);
  const allowed = await call(registry, "ha_call_service", { domain: "notify", service: "mobile_app_phone" });
  assert.equal(allowed.success, true, "a domain off the list is called");
});

test("invalid domains, services and entity ids never reach the server", async () => {
  const registry = tools();
  const calls: Array<[string, Record<string, unknown>]> = [
    ["ha_get_state", { entity_id: "../config" }],
    ["ha_get_state", { entity_id: "light.kitchen/../../config" }],
    ["ha_get_state", { entity_id: "light.kitchen?x=1" }],
    ["ha_get_state", { entity_id: "light" }],
    ["ha_get_state", { entity_id: "Light.Kitchen" }],
    ["ha_get_state", { entity_id: "light.kitchen%2F.." }],
    ["ha_list_entities", { domain: "light/../services" }],
    ["ha_list_services", { domain: "light." }],
    ["ha_call_service", { domain: "light/../states", service: "turn_on" }],
    ["ha_call_service", { domain: "..", service: "turn_on" }],
    ["ha_call_service", { domain: "light", service: "turn_on/../../states" }],
    ["ha_call_service", { domain: "light", service: "turn_on?return_response" }],
    ["ha_call_service", { domain: "light", service: "turn_on", entity_id: "light.kitchen#x" }],
    ["ha_call_service", { domain: "shell_command/x", service: "turn_on" }],
  ];
  for (const [name, args] of calls) {
    const error = errorOf(await call(registry, name, args));
    assert.match(
      error,
      /is not (a Home Assistant domain|an entity id|a service name)/,
      `${name} ${JSON.stringify(args)}`,
    );
  }
  assert.equal(seen.length, 0);
});

test("a refused token is a 401 that points at HASS_TOKEN, without echoing it", async () => {
  const wrong = "hass-wrong-token-0a8b7c";
  const registry = tools({ HASS_TOKEN: wrong, HASS_URL: base });
  const spec = registry.get("ha_list_entities")!;
  const text = await spec.handler({}, makeContext(tempDir("ha")));
  assert.ok(!text.includes(wrong));
  const error = errorOf(JSON.parse(text) as Record<string, unknown>);
  assert.match(error, /refused the token \(HTTP 401\)/);
  assert.match(error, /HASS_TOKEN/);
  assert.match(error, /profile page/);
});

test("a 5xx is an internal-error message with the token taken out of what the server said", async () => {
  const error = errorOf(await call(tools(), "ha_get_state", { entity_id: "sensor.broken" }));
  assert.match(error, /internal error \(HTTP 500\)/);
  assert.match(error, /database locked/);
});

test("a server that does not answer in time gives up after the deadline", async () => {
  const registry = tools(undefined, { timeoutMs: 300 });
  const error = errorOf(await call(registry, "ha_get_state", { entity_id: "sensor.slow" }));
  assert.match(error, /did not answer within 0\.3s/);
  assert.match(error, /HASS_URL/);
});

test("an interrupted turn stops the request", async () => {
  const controller = new AbortController();
  onHeld = () => controller.abort();
  try {
    const error = errorOf(await call(tools(), "ha_get_state", { entity_id: "sensor.slow" }, controller.signal));
    assert.match(error, /interrupted/);
  } finally {
    onHeld = undefined;
  }
});

test("an answer past the size cap is refused, not read whole", async () => {
  const registry = tools(undefined, { maxResponseBytes: 50_000 });
  const error = errorOf(await call(registry, "ha_get_state", { entity_id: "sensor.huge" }));
  assert.match(error, /larger than 49 KB/);
});

test("a redirect is reported and not followed, so the token never leaves HASS_URL's origin", async () => {
  const error = errorOf(await call(tools(), "ha_get_state", { entity_id: "sensor.moved" }));
  assert.match(error, /redirect \(HTTP 302\)/);
  assert.ok(error.includes(elsewhereBase), "the redirect's target is named");
  assert.equal(elsewhereHits, 0);
});

test("a server that cannot be reached is named in the error", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const error = errorOf(await call(tools({ HASS_TOKEN: TOKEN, HASS_URL: url }), "ha_list_services", {}));
  assert.match(error, new RegExp(`Could not reach Home Assistant at ${url.replaceAll(".", "\\.")}: ECONNREFUSED`));
});

test("without HASS_TOKEN the tools are unavailable and a call says how to set it up", async () => {
  const registry = tools({ HASS_URL: base });
  for (const name of ["ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service"]) {
    assert.equal(await registry.isAvailable(name), false, name);
  }
  const error = errorOf(await call(registry, "ha_list_entities", {}));
  assert.match(error, /HASS_TOKEN/);
  assert.match(error, /long-lived access token/);
  assert.equal(seen.length, 0);

  const configured = tools({ HASS_TOKEN: TOKEN });
  for (const name of ["ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service"]) {
    assert.equal(await configured.isAvailable(name), true, name);
  }
});

test("HASS_URL defaults to homeassistant.local, drops a trailing /api and refuses credentials", () => {
  const plain = connectionFromEnv({ HASS_TOKEN: TOKEN });
  assert.ok(plain.ok);
  assert.equal(plain.connection.base, DEFAULT_HASS_URL);
  const withApi = connectionFromEnv({ HASS_TOKEN: TOKEN, HASS_URL: "https://ha.example.net:8443/api/" });
  assert.ok(withApi.ok);
  assert.equal(withApi.connection.base, "https://ha.example.net:8443");
  const withUser = connectionFromEnv({ HASS_TOKEN: TOKEN, HASS_URL: "http://me:secret@192.168.1.5:8123" });
  assert.ok(!withUser.ok);
  assert.ok(!withUser.error.includes("secret"));
  assert.ok(!connectionFromEnv({ HASS_TOKEN: TOKEN, HASS_URL: "file:///etc/passwd" }).ok);
  assert.ok(!connectionFromEnv({ HASS_TOKEN: "  " }).ok);
});

test("the built-in tools include the four Home Assistant tools", () => {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  for (const name of ["ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service"]) {
    assert.equal(registry.get(name)?.toolset, "homeassistant", name);
  }
});

test("ha_call_service changes state for the permission modes; the other three only read", () => {
  assert.equal(classifyToolCall("ha_call_service", { domain: "light", service: "turn_on" }).effect, "execute");
  for (const name of ["ha_list_entities", "ha_get_state", "ha_list_services"]) {
    assert.equal(classifyToolCall(name, {}).effect, "read", name);
  }
  const gate = new PermissionGate({ mode: "plan", projectRoot: tempDir("ha-plan") });
  const cwd = tempDir("ha-cwd");
  assert.equal(
    gate.decide({ name: "ha_call_service", args: { domain: "light", service: "turn_on" }, cwd }).action,
    "plan",
  );
  assert.equal(gate.decide({ name: "ha_get_state", args: { entity_id: "light.kitchen" }, cwd }).action, "default");
});

test("an agent with the homeassistant toolset switches a light through the model's tool call", async () => {
  const saved = { token: process.env.HASS_TOKEN, url: process.env.HASS_URL };
  process.env.HASS_TOKEN = TOKEN;
  process.env.HASS_URL = base;
  const t = await openTestRuntime({
    script: [
      {
        toolCalls: [
          { name: "ha_call_service", arguments: { domain: "light", service: "turn_on", entity_id: "light.kitchen" } },
        ],
      },
      { text: "The kitchen light is on." },
    ],
  });
  try {
    const agent = t.runtime.createAgent({ toolsets: ["homeassistant"] });
    await agent.runConversation("turn on the kitchen light");
    const sent = t.fake.requests
      .find((r) => r.method === "POST")!
      .body.tools.map((d: { function: { name: string } }) => d.function.name);
    assert.deepEqual([...sent].sort(), ["ha_call_service", "ha_get_state", "ha_list_entities", "ha_list_services"]);
    const result = agent.messages.find((m) => m.role === "tool")?.content as string;
    assert.match(result, /"state":"on"/);
    assert.ok(!result.includes(TOKEN));
    assert.equal(states.find((s) => s.entity_id === "light.kitchen")?.state, "on");
  } finally {
    await t.close();
    if (saved.token === undefined) delete process.env.HASS_TOKEN;
    else process.env.HASS_TOKEN = saved.token;
    if (saved.url === undefined) delete process.env.HASS_URL;
    else process.env.HASS_URL = saved.url;
  }
});
