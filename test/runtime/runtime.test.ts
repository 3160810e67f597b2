import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Agent } from "../../src/agent/agent.js";
import type { MemoryManager } from "../../src/agent/memory-manager.js";
import { AgentCache } from "../../src/runtime/agent-cache.js";
import { memoryScopeDir } from "../../src/runtime/agent-options.js";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
const opened: HermesRuntime[] = [];

/** The text of the last user message the model was sent. */
function lastUserText(req: RecordedRequest): string {
  const users = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

before(async () => {
  fake = await startFakeProvider({ fallback: (req) => ({ text: `echo: ${lastUserText(req)}` }) });
});
after(async () => {
  for (const runtime of opened) await runtime.close();
  await fake.close();
});

async function open(config = "", notices: string[] = [], platform?: string): Promise<HermesRuntime> {
  const home = tempDir("hermes-runtime-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n${config}`,
  );
  const runtime = await openRuntime({
    home,
    localServers: false,
    skipDotEnv: true,
    ...(platform ? { platform } : {}),
    callbacks: { onNotice: (message) => notices.push(message) },
  });
  opened.push(runtime);
  return runtime;
}

test("a runtime hands out one agent per session key and a new one for another key", async () => {
  const runtime = await open();
  const a = runtime.agentFor("chat:1", { platform: "api_server" });
  assert.equal(runtime.agentFor("chat:1"), a);
  const b = runtime.agentFor("chat:2");
  assert.notEqual(a, b);
  assert.equal(a.options.platform, "api_server");
  assert.deepEqual(runtime.cachedKeys(), ["chat:1", "chat:2"]);
});

test("an agent dropped from the cache is rebuilt with its transcript reloaded from the store", async () => {
  const runtime = await open("gateway:\n  agent_cache:\n    max_agents: 1\n");
  const first = runtime.agentFor("k1");
  const result = await first.runConversation("remember the word kumquat");
  assert.equal(result.finalResponse, "echo: remember the word kumquat");
  runtime.agentFor("k2"); // pushes k1 out: the limit is one agent
  assert.deepEqual(runtime.cachedKeys(), ["k2"]);
  const again = runtime.agentFor("k1", { sessionId: result.sessionId });
  assert.notEqual(again, first);
  await again.runConversation("and now?");
  const sent = fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.ok(sent.some((m) => m.role === "user" && m.content === "remember the word kumquat"));
  assert.equal((await runtime.store.getMessages(result.sessionId)).length, 4);
});

test("notices go to the callback, and the runtime writes nothing to stderr", async () => {
  const notices: string[] = [];
  const writes: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => {
    writes.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await open("no_such_key: 1\ncontext:\n  engine: lcm\nsecurity:\n  redact_secrets: false\n", notices);
  } finally {
    process.stderr.write = original;
  }
  assert.ok(notices.some((n) => /unknown key "no_such_key"/.test(n)));
  assert.ok(notices.some((n) => /context.engine "lcm" is not available/.test(n)));
  assert.ok(notices.some((n) => /security.redact_secrets: false is not honoured: secrets stay masked/.test(n)));
  assert.deepEqual(writes, []);
});

test("a memory scope keeps its own MEMORY.md apart from the shared one", async () => {
  const runtime = await open();
  const scoped = runtime.createAgent({ memoryScope: "user/../42" });
  const memory = scoped.options.memory as MemoryManager;
  memory.store!.add("memory", "likes tea");
  const dir = join(runtime.home, "memories", "scopes", memoryScopeDir("user/../42"));
  assert.ok(readFileSync(join(dir, "MEMORY.md"), "utf8").includes("likes tea"));
  assert.equal(existsSync(join(runtime.home, "memories", "MEMORY.md")), false);
  assert.doesNotMatch(memoryScopeDir("../../etc"), /\//);
});

test("per-run callbacks and an ephemeral layer apply to that run only", async () => {
  const runtime = await open();
  const agent = runtime.agentFor("layers");
  await agent.runConversation("one", { ephemeralSystemPrompt: "Answer in French." });
  const withLayer = fake.requests.at(-1)!.body.messages[0].content as string;
  assert.match(withLayer, /Answer in French\.$/);
  await agent.runConversation("two");
  const without = fake.requests.at(-1)!.body.messages[0].content as string;
  assert.doesNotMatch(without, /Answer in French/);
  assert.equal(without, withLayer.replace(/\n\nAnswer in French\.$/, ""));
});

test("the agent cache drops idle agents but never one that is running", () => {
  let now = 0;
  const cache = new AgentCache({ maxAgents: 2, idleMs: 1000, now: () => now });
  const idle = { running: false } as Agent;
  const busy = { running: true } as Agent;
  cache.set("idle", idle);
  cache.set("busy", busy);
  now = 5000;
  assert.deepEqual(cache.dropIdle(), ["idle"]);
  assert.deepEqual(cache.keys(), ["busy"]);
  cache.set("a", idle);
  cache.set("b", idle);
  // Over the limit: the oldest idle agent goes, the running one stays.
  assert.deepEqual(cache.keys(), ["busy", "b"]);
  cache.close();
});

test("commands run for the model do not see the agent's provider keys unless env_passthrough names them", async () => {
  process.env.OPENROUTER_API_KEY = "sk-or-withheld-0123456789";
  process.env.HERMES_TEST_PLAIN = "visible";
  try {
    const run = async (runtime: HermesRuntime) => {
      const terminal = runtime.registry.get("terminal")!;
      const ctx = { cwd: runtime.home, signal: new AbortController().signal };
      const output = await terminal.handler(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
        { command: 'echo "key=${OPENROUTER_API_KEY:-none} plain=$HERMES_TEST_PLAIN"' },
        ctx,
      );
      return JSON.parse(output).output as string;
    };
    assert.match(await run(await open()), /key=none plain=visible/);
    const allowed = await open("terminal:\n  env_passthrough: [OPENROUTER_API_KEY]\n");
    assert.match(await run(allowed), /key=sk-or-withheld-0123456789 plain=visible/);
  } finally {
    delete process.env.OPENROUTER_API_KEY;
    delete process.env.HERMES_TEST_PLAIN;
  }
});

test("a service sources the user's ~/.profile and ~/.bashrc for commands; the terminal CLI, which inherits them, does not", async () => {
  const userHome = tempDir("hermes-runtime-user-");
  writeFileSync(join(userHome, ".profile"), "export HERMES_TEST_PROFILE=profile\n");
  writeFileSync(join(userHome, ".bashrc"), "export HERMES_TEST_BASHRC=bashrc\n");
  const named = join(userHome, "tools.sh");
  writeFileSync(named, "export HERMES_TEST_NAMED=named\n");
  const realHome = process.env.HOME;
  process.env.HOME = userHome;
  try {
    const run = async (runtime: HermesRuntime) => {
      const terminal = runtime.registry.get("terminal")!;
      const ctx = { cwd: runtime.home, signal: new AbortController().signal };
      const command = 'echo "$HERMES_TEST_PROFILE $HERMES_TEST_BASHRC $HERMES_TEST_NAMED"';
      return (JSON.parse(await terminal.handler({ command }, ctx)).output as string).trim();
    };
    assert.equal(await run(await open("", [], "api_server")), "profile bashrc");
    assert.equal(await run(await open("terminal:\n  auto_source_bashrc: false\n", [], "api_server")), "");
    assert.equal(await run(await open()), "");
    // Named files apply on every surface, in place of the usual ones.
    assert.equal(await run(await open("terminal:\n  shell_init_files: [~/tools.sh]\n")), "named");
  } finally {
    process.env.HOME = realHome;
  }
});

test("answering always saves exactly that command to config.yaml for the next run, not its whole kind", async () => {
  const runtime = await open();
  const ctx = {
    cwd: runtime.home,
    signal: new AbortController().signal,
    interactive: true,
    requestApproval: async () => "always" as const,
  };
  const first = await runtime.approvals.check("rm -rf ./build-output", ctx);
  assert.equal(first.allowed, true);
  const saved = readFileSync(join(runtime.home, "config.yaml"), "utf8");
  assert.match(saved, /cmd:rm -rf \.\/build-output/);
  assert.ok(first.key && !saved.includes(`- ${first.key}\n`), "the kind of command is not saved");
  const next = await openRuntime({ home: runtime.home, localServers: false, skipDotEnv: true });
  opened.push(next);
  const deny = { ...ctx, requestApproval: async () => "deny" as const };
  const again = await next.approvals.check("rm  -rf   ./build-output", deny);
  assert.deepEqual([again.allowed, again.allowed && again.via], [true, "allowlist"], "whitespace does not matter");
  const other = await next.approvals.check("rm -rf ./src", deny);
  assert.equal(other.allowed, false, "another command of the same kind is asked again");
});

test("platform_toolsets gives a platform its own toolsets in place of toolsets", async () => {
  const runtime = await open("toolsets: [hermes-cli]\nplatform_toolsets:\n  cli: [web, file]\n");
  assert.deepEqual(runtime.defaultToolsets(), ["web", "file"]);
  const other = await open("toolsets: [hermes-cli]\nplatform_toolsets:\n  telegram: [web]\n");
  assert.deepEqual(other.defaultToolsets(), ["hermes-cli"], "another platform's entry does not apply");
});

test("agent.service_tier goes with every model request of the runtime's agents", async () => {
  const runtime = await open("agent:\n  service_tier: priority\n");
  const before = fake.requests.length;
  await runtime.createAgent().runConversation("hello");
  const posts = fake.requests.slice(before).filter((r) => r.method === "POST");
  assert.ok(posts.length > 0);
  for (const request of posts) assert.equal(request.body.service_tier, "priority");
});

test("display.personality is the personality conversations start with; an unknown name is reported and ignored", async () => {
  const runtime = await open("display:\n  personality: concise\n");
  const before = fake.requests.length;
  await runtime.createAgent().runConversation("hello");
  const system = String(
    (fake.requests.slice(before).find((r) => r.method === "POST")!.body.messages as Array<{ content: string }>)[0]!
      .content,
  );
  assert.match(system, /Be concise: answer in as few words as the task allows/);
  const notices: string[] = [];
  await open("display:\n  personality: pirate\n", notices);
  assert.ok(notices.some((n) => /display\.personality: No personality "pirate"\. Known: .*concise/.test(n)));
});
