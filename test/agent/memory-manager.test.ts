import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { MemoryManager, type MemoryProvider } from "../../src/agent/memory-manager.js";
import { MemoryStore } from "../../src/state/memory-store.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { registerMemoryTools } from "../../src/tools/builtin/memory.js";
import type { ToolSpec } from "../../src/tools/registry.js";
import { splitPieces } from "../fake-provider/turn.js";
import { conversationOf, createHarness } from "../helpers/agent-harness.js";
import { tempDir } from "../state/temp-dir.js";
import { systemOf } from "./context-fixtures.js";

const REMEMBER = {
  toolCalls: [{ name: "memory", arguments: { action: "add", target: "user", content: "The user's name is Ada." } }],
};

test("memory written in a session shows in the next session's system prompt, not in the current one", async () => {
  const h = await createHarness(
    { script: [REMEMBER, { text: "saved" }, { text: "still here" }, { text: "hello Ada" }] },
    { tools: ["echo", "memory"] },
  );
  registerMemoryTools(h.registry);
  try {
    await h.agent.runConversation("my name is Ada, remember it");
    await h.agent.runConversation("do you know me?");
    const firstSession = h.fake.requests.slice(0, 3).map(systemOf);
    assert.equal(new Set(firstSession).size, 1);
    assert.doesNotMatch(firstSession[0]!, /Ada/);
    assert.match(String(conversationOf(h.fake.requests[1]!).at(-1)?.content), /"success":true/);

    const next = new Agent({ ...h.agent.options, sessionId: undefined });
    await next.runConversation("who am I?");
    assert.match(systemOf(h.fake.requests[3]!), /USER PROFILE[^\n]*\nThe user's name is Ada\./);
  } finally {
    await h.close();
  }
});

test("a memory manager shared by two sessions refreshes its snapshot when a session starts", async () => {
  const h = await createHarness({ script: [REMEMBER, { text: "saved" }, { text: "hi Ada" }] }, { tools: ["memory"] });
  registerMemoryTools(h.registry);
  try {
    const memory = new MemoryManager({ store: new MemoryStore({ dir: join(h.dir, "shared-memories") }) });
    const first = new Agent({ ...h.agent.options, memory });
    await first.runConversation("remember my name");
    assert.deepEqual(memory.store?.entries("user"), ["The user's name is Ada."]);
    const second = new Agent({ ...h.agent.options, memory });
    await second.runConversation("hello");
    assert.doesNotMatch(systemOf(h.fake.requests[1]!), /Ada/);
    assert.match(systemOf(h.fake.requests[2]!), /The user's name is Ada\./);
  } finally {
    await h.close();
  }
});

test("memory turned off leaves the memory tool without a store", async () => {
  const h = await createHarness({ script: [REMEMBER, { text: "could not" }] }, { tools: ["memory"], memory: false });
  registerMemoryTools(h.registry);
  try {
    await h.agent.runConversation("remember me");
    assert.match(String(conversationOf(h.fake.requests[1]!).at(-1)?.content), /turned off/);
  } finally {
    await h.close();
  }
});

test("each user turn resets the store's per-turn failure counter", async () => {
  let turns = 0;
  class CountingStore extends MemoryStore {
    override startTurn(): void {
      turns++;
      super.startTurn();
    }
  }
  const h = await createHarness({ script: [{ text: "a" }, { text: "b" }] });
  try {
    const memory = new MemoryManager({ store: new CountingStore({ dir: join(h.dir, "m") }) });
    const agent = new Agent({ ...h.agent.options, memory });
    await agent.runConversation("one");
    await agent.runConversation("two");
    assert.equal(turns, 2);
  } finally {
    await h.close();
  }
});

class RecallProvider implements MemoryProvider {
  readonly name: string;
  synced: Array<[string, string]> = [];
  queued: string[] = [];
  constructor(
    name = "recall-test",
    private readonly failPrefetch = false,
  ) {
    this.name = name;
  }
  systemPromptBlock(): string {
    return "External memory: the vector store is online.";
  }
  async prefetch(query: string): Promise<string> {
    if (this.failPrefetch) throw new Error("vector store unreachable");
    return `Earlier the user asked about "${query.slice(0, 20)}"; they like tea.`;
  }
  async syncTurn(user: string, assistant: string): Promise<void> {
    this.synced.push([user, assistant]);
  }
  queuePrefetch(query: string): void {
    this.queued.push(query);
  }
  tools(): ToolSpec[] {
    return [
      {
        name: "recall_search",
        toolset: "memory-provider",
        description: "Search the external memory.",
        parameters: z.object({ query: z.string() }),
        handler: async ({ query }: { query: string }) => `nothing more about ${query}`,
      } as unknown as ToolSpec,
    ];
  }
}

test("recalled memory rides on the current user message at call time only, and never reaches the screen", async () => {
  const echoed = "Noted. <memory-context>they like tea</memory-context> Tea it is.";
  assert.ok(
    splitPieces(echoed).some((piece) => piece.endsWith("<memory-context")),
    "the fake cuts the opening tag across chunks",
  );
  const h = await createHarness({
    script: [
      { toolCalls: [{ name: "recall_search", arguments: { query: "drinks" } }] },
      { text: echoed },
      { text: "second" },
    ],
  });
  const store = await openSessionStore(join(h.dir, "state.db"));
  try {
    const provider = new RecallProvider();
    const memory = new MemoryManager({ store: new MemoryStore({ dir: join(h.dir, "m") }), provider });
    const agent = new Agent({ ...h.agent.options, memory, sessionStore: store, sessionId: "mem" });
    const result = await agent.runConversation("What should I drink?");

    for (const req of h.fake.requests.slice(0, 2)) {
      const user = String(conversationOf(req).find((m) => m.role === "user")?.content);
      assert.ok(user.startsWith("<memory-context>\n"), "the fence leads the current user message");
      assert.match(user, /they like tea\.\n<\/memory-context>\n\nWhat should I drink\?$/);
    }
    assert.match(systemOf(h.fake.requests[0]!), /External memory: the vector store is online\./);
    assert.ok(
      h.fake.requests[0]!.body.tools.some((t: { function: { name: string } }) => t.function.name === "recall_search"),
    );

    const streamed = h.events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
    assert.equal(streamed, "Noted. Tea it is.");
    assert.equal(result.finalResponse, "Noted. Tea it is.");
    assert.equal(result.messages[0]?.content, "What should I drink?", "the history holds the user's own words");
    const saved = await store.getMessages("mem");
    assert.ok(!saved.some((m) => String(m.content).includes("memory-context")), "nothing fenced is stored");
    assert.deepEqual(provider.synced, [["What should I drink?", "Noted. Tea it is."]]);
    assert.deepEqual(provider.queued, ["What should I drink?"]);

    await agent.runConversation("And to eat?");
    const users = conversationOf(h.fake.requests[2]!).filter((m) => m.role === "user");
    assert.equal(users[0]?.content, "What should I drink?", "earlier turns are sent without their recall");
    assert.match(String(users[1]?.content), /^<memory-context>[\s\S]*And to eat\?$/);
  } finally {
    store.close();
    await h.close();
  }
});

test("only one external provider is allowed, and a failing provider never breaks the turn", async () => {
  const warnings: string[] = [];
  const memory = new MemoryManager({ onWarning: (w) => warnings.push(w) });
  assert.equal(memory.addProvider(new RecallProvider("first", true)), true);
  assert.equal(memory.addProvider(new RecallProvider("second")), false);
  assert.match(warnings[0]!, /"second" was not added: "first" is already active/);

  const h = await createHarness({ script: [{ text: "fine" }] });
  try {
    const agent = new Agent({ ...h.agent.options, memory });
    const result = await agent.runConversation("hi");
    assert.equal(result.finalResponse, "fine");
    assert.match(warnings[1]!, /"first" failed during recall: vector store unreachable/);
    assert.equal(conversationOf(h.fake.requests[0]!).at(-1)?.content, "hi");
  } finally {
    await h.close();
  }
});

function lifecycleProvider(calls: string[], overrides: Partial<MemoryProvider> = {}): MemoryProvider {
  return {
    name: "probe",
    isAvailable: () => {
      calls.push("isAvailable");
      return true;
    },
    initialize: () => {
      calls.push("initialize");
    },
    systemPromptBlock: () => "",
    prefetch: async (query, turn) => {
      calls.push(`prefetch ${query} ${turn?.sessionId}`);
      return "";
    },
    syncTurn: async (user, _assistant, turn) => {
      calls.push(`sync ${user} ${turn?.sessionId}`);
    },
    queuePrefetch: () => {},
    tools: () => [],
    onPreCompress: (messages) => {
      calls.push(`pre-compress ${messages.length}`);
    },
    onSessionEnd: (messages, turn) => {
      calls.push(`end ${messages.length} ${turn.sessionId}`);
    },
    onMemoryWrite: (write) => {
      calls.push(`write ${write.action} ${write.target} ${write.content}`);
    },
    shutdown: () => {
      calls.push("shutdown");
    },
    ...overrides,
  };
}

test("a provider made on first use is checked and initialised once, then hears of turns, memory writes, session end and shutdown", async () => {
  const calls: string[] = [];
  let made = 0;
  const store = new MemoryStore({ dir: join(tempDir("hermes-memory-"), "memories") });
  const manager = new MemoryManager({
    store,
    provider: async () => {
      made++;
      return lifecycleProvider(calls);
    },
  });
  assert.equal(manager.provider, undefined, "nothing is made before it is needed");
  await Promise.all([manager.ready(), manager.ready()]);
  assert.equal(made, 1);
  const turn = { sessionId: "s1", platform: "cli" };
  await manager.recall("hello", turn);
  await manager.finishTurn("hello", "hi", turn);
  store.add("user", "Prefers short answers");
  store.add("user", "Prefers short answers"); // a duplicate changes nothing but still succeeds
  store.remove("memory", "not there"); // a failed write is not reported
  await manager.beforeCompress([{ role: "user", content: "a" }], turn);
  await manager.endSession(
    [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ],
    turn,
  );
  await manager.shutdown();
  assert.deepEqual(calls, [
    "isAvailable",
    "initialize",
    "prefetch hello s1",
    "sync hello s1",
    "write add user Prefers short answers",
    "write add user Prefers short answers",
    "pre-compress 1",
    "end 2 s1",
    "shutdown",
  ]);
  assert.equal(manager.provider, undefined, "a shut-down provider is not used again");
});

test("a provider that is not available, or fails to start, is reported and memory stays in the files", async () => {
  for (const [overrides, expected] of [
    [{ isAvailable: () => false }, /"probe" is not available; memory stays in MEMORY.md and USER.md/],
    [
      {
        initialize: () => {
          throw new Error("no database");
        },
      },
      /"probe" failed during initialisation: no database/,
    ],
  ] as const) {
    const warnings: string[] = [];
    const manager = new MemoryManager({
      provider: async () => lifecycleProvider([], overrides),
      onWarning: (message) => warnings.push(message),
    });
    assert.equal(await manager.recall("hello"), "");
    assert.equal(manager.provider, undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, expected);
  }
});
