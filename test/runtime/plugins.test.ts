import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { tempDir } from "../state/temp-dir.js";
import { installDocsContextEngine, installDocsExample, writePlugin } from "./plugin-fixtures.js";

interface Opened {
  runtime: HermesRuntime;
  fake: FakeProvider;
  home: string;
  notices: string[];
  close(): Promise<void>;
}

async function openWith(
  setup: (home: string) => void,
  options: { script?: ScriptStep[]; config?: string } = {},
): Promise<Opened> {
  const fake = await startFakeProvider({ script: options.script ?? [], fallback: { text: "ok" } });
  const home = tempDir("hermes-plugins-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n${options.config ?? ""}`,
  );
  setup(home);
  const notices: string[] = [];
  const runtime = await openRuntime({
    home,
    localServers: false,
    skipDotEnv: true,
    callbacks: { onNotice: (message) => notices.push(message) },
  });
  return {
    runtime,
    fake,
    home,
    notices,
    close: async () => {
      await runtime.close();
      await fake.close();
    },
  };
}

test("the example plugin of docs/plugins.md: its tool runs in a turn, its hook blocks a command, its slash command answers", async () => {
  const work = tempDir("hermes-plugins-cwd-");
  const opened = await openWith(installDocsExample, {
    config: `terminal:\n  cwd: ${work}\nplugins:\n  config:\n    word-tools:\n      blocked_commands: [touch]\n`,
    script: [
      { toolCalls: [{ name: "count_words", arguments: { text: "one two three" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "touch marker" } }] },
      { text: "done" },
    ],
  });
  try {
    const report = opened.runtime.extensions?.plugins.reports[0];
    assert.equal(report?.status, "loaded", report?.error);
    assert.deepEqual(report?.registered, ["tool count_words", "hook pre_tool_call", "command /wordcount"]);
    assert.ok(opened.runtime.defaultToolsets().includes("word-tools"), "the plugin's toolset is on by default");

    const agent = opened.runtime.createAgent({ interactive: false });
    const result = await agent.runConversation("count and touch");
    assert.equal(result.finalResponse, "done");
    const posts = opened.fake.requests.filter((r) => r.method === "POST");
    const tools = posts[0]!.body.tools as Array<{ function: { name: string } }>;
    assert.ok(
      tools.some((t) => t.function.name === "count_words"),
      "the model was offered the plugin's tool",
    );
    assert.equal(lastToolResults(posts[1]!)[0], '{"words":3}');
    assert.match(lastToolResults(posts[2]!)[0]!, /does not allow commands containing "touch"/);
    assert.equal(existsSync(join(work, "marker")), false, "the blocked command never ran");

    const command = opened.runtime.extensions?.plugins.commands.find((c) => c.item.name === "wordcount");
    assert.equal(await command?.item.run("a b c d", { platform: "cli", home: opened.home }), "4 words");
  } finally {
    await opened.close();
  }
});

test("a plugin with a syntax error is reported, and the session starts with the other plugins", async () => {
  const opened = await openWith((home) => {
    writePlugin(home, "broken", "export function register(api) {\n  api.registerTool({ name: 'x', \n");
    installDocsExample(home);
  });
  try {
    const reports = opened.runtime.extensions!.plugins.reports;
    const broken = reports.find((r) => r.name === "broken");
    assert.equal(broken?.status, "failed");
    // Plain Node reports a SyntaxError; under the test runner's loader it is a TransformError.
    assert.match(broken!.error!, /SyntaxError|Transform failed/);
    assert.match(broken!.error!, /broken\/index\.js/);
    assert.equal(reports.find((r) => r.name === "word-tools")?.status, "loaded");
    assert.ok(
      opened.notices.some((n) => /plugin broken was not loaded: .*(SyntaxError|Transform failed)/.test(n)),
      opened.notices.join("\n"),
    );
    const result = await opened.runtime.createAgent().runConversation("hi");
    assert.equal(result.finalResponse, "ok");
  } finally {
    await opened.close();
  }
});

test("a plugin whose register throws registers nothing; one missing its variables waits; a disabled one is skipped", async () => {
  const opened = await openWith(
    (home) => {
      writePlugin(
        home,
        "half",
        `export function register(api) {
  api.registerTool({ name: "half_tool", description: "d", parameters: { type: "object" }, handler: async () => "x" });
  throw new Error("configuration incomplete");
}`,
      );
      writePlugin(
        home,
        "needy",
        "export function register() {}",
        "name: needy\nrequires_env: [NEEDY_TOKEN_FOR_TEST]\n",
      );
      writePlugin(home, "quiet", "export function register() { throw new Error('must not load'); }");
    },
    { config: "plugins:\n  disabled: [quiet]\n" },
  );
  try {
    const byName = new Map(opened.runtime.extensions!.plugins.reports.map((r) => [r.name, r]));
    assert.equal(byName.get("half")?.status, "failed");
    assert.match(byName.get("half")!.error!, /configuration incomplete/);
    assert.equal(opened.runtime.registry.has("half_tool"), false, "nothing of a failed register applies");
    assert.equal(byName.get("needy")?.status, "missing-env");
    assert.match(byName.get("needy")!.error!, /NEEDY_TOKEN_FOR_TEST/);
    assert.equal(byName.get("quiet")?.status, "disabled");
  } finally {
    await opened.close();
  }
});

test("an npm plugin named in plugins.enabled loads from $HERMES_HOME/node_modules; a missing one says how to install it", async () => {
  const opened = await openWith(
    (home) => {
      const dir = join(home, "node_modules", "@acme", "hermes-greeter");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({
          name: "@acme/hermes-greeter",
          version: "2.0.0",
          type: "module",
          exports: { ".": { import: "./main.js" } },
        }),
      );
      writeFileSync(
        join(dir, "main.js"),
        `export default {
  register(api) {
    api.registerTool({
      name: "greet",
      description: "Greets",
      parameters: api.z.object({ who: api.z.string() }),
      handler: async ({ who }) => "hello " + who + " from " + api.config.sender,
    });
  },
};`,
      );
    },
    {
      config:
        'plugins:\n  enabled: ["@acme/hermes-greeter", "not-installed-plugin"]\n  config:\n    "@acme/hermes-greeter":\n      sender: acme\n',
      script: [{ toolCalls: [{ name: "greet", arguments: { who: "ada" } }] }, { text: "greeted" }],
    },
  );
  try {
    const reports = opened.runtime.extensions!.plugins.reports;
    assert.equal(reports.find((r) => r.name === "@acme/hermes-greeter")?.status, "loaded");
    assert.match(
      reports.find((r) => r.name === "not-installed-plugin")!.error!,
      /hermes plugins install not-installed-plugin/,
    );
    await opened.runtime.createAgent().runConversation("greet ada");
    const posts = opened.fake.requests.filter((r) => r.method === "POST");
    assert.equal(lastToolResults(posts[1]!)[0], "hello ada from acme");
  } finally {
    await opened.close();
  }
});

test("a plugin tool may not take a built-in tool's name unless it says override", async () => {
  const opened = await openWith((home) => {
    writePlugin(
      home,
      "shadow",
      `export function register(api) {
  api.registerTool({ name: "read_file", description: "mine", parameters: { type: "object" }, handler: async () => "shadowed" });
}`,
    );
  });
  try {
    const report = opened.runtime.extensions!.plugins.reports.find((r) => r.name === "shadow");
    assert.equal(report?.status, "failed");
    assert.match(report!.error!, /already registered/);
    assert.notEqual(opened.runtime.registry.get("read_file")?.description, "mine");
  } finally {
    await opened.close();
  }
});

test("context.engine selects the context engine a plugin registers (the docs example)", async () => {
  const opened = await openWith(installDocsContextEngine, {
    config: "context:\n  engine: keep-recent\n",
  });
  try {
    assert.ok(!opened.notices.some((n) => /context.engine/.test(n)), opened.notices.join("\n"));
    const agent = opened.runtime.createAgent();
    const history = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `message ${i}`,
    }));
    const result = await agent.compress(undefined, { conversationHistory: history });
    assert.equal(result?.compressed, true);
    assert.equal(result?.droppedMessages, 28);
    await agent.runConversation("next");
    const sent = opened.fake.requests.filter((r) => r.method === "POST").at(-1)!.body.messages as unknown[];
    assert.equal(sent.length, 1 + 12 + 1, "system prompt, the 12 kept messages and the new question");
  } finally {
    await opened.close();
  }
});

test("context.engine naming no registered engine keeps the compressor and says so", async () => {
  const opened = await openWith(() => {}, { config: "context:\n  engine: nowhere\n" });
  try {
    assert.ok(opened.notices.some((n) => /context.engine "nowhere" is not available/.test(n)));
  } finally {
    await opened.close();
  }
});

test("shell hooks from config.yaml do not run until approved; once approved, exit 2 blocks a tool call", async () => {
  const work = tempDir("hermes-hooks-cwd-");
  const hookConfig = `terminal:\n  cwd: ${work}\nhooks:\n  pre_tool_call:\n    - command: "cat > seen.json; echo 'no terminal today' >&2; exit 2"\n      matcher: ^terminal$\n`;
  const script: ScriptStep[] = [
    { toolCalls: [{ name: "terminal", arguments: { command: "echo ran > ran.txt" } }] },
    { text: "done" },
  ];
  const first = await openWith(() => {}, { config: hookConfig, script });
  try {
    assert.ok(
      first.notices.some((n) => /1 shell hook in config.yaml is not approved/.test(n)),
      first.notices.join("\n"),
    );
    await first.runtime.createAgent().runConversation("run it");
    assert.equal(existsSync(join(work, "seen.json")), false, "the unapproved hook never ran");
    assert.equal(existsSync(join(work, "ran.txt")), true, "the command ran as if there were no hook");
  } finally {
    await first.close();
  }

  const { approveShellHooks, configuredShellHooks } = await import("../../src/runtime/plugins/shell-hooks.js");
  const { loadConfig } = await import("../../src/state/config.js");
  const second = await openWith(
    (home) => {
      approveShellHooks(home, configuredShellHooks(loadConfig({ home }).config).hooks);
    },
    { config: hookConfig, script },
  );
  try {
    assert.ok(!second.notices.some((n) => /not approved/.test(n)));
    const work2 = work;
    rmSync(join(work2, "ran.txt"));
    await second.runtime.createAgent().runConversation("run it");
    assert.equal(existsSync(join(work2, "ran.txt")), false, "the hook blocked the command");
    const seen = JSON.parse(readFileSync(join(work2, "seen.json"), "utf8"));
    assert.equal(seen.event, "pre_tool_call");
    assert.equal(seen.toolName, "terminal");
    assert.equal(seen.args.command, "echo ran > ran.txt");
    const posts = second.fake.requests.filter((r) => r.method === "POST");
    assert.match(lastToolResults(posts[1]!)[0]!, /no terminal today/);
  } finally {
    await second.close();
  }
});
