import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import { runNode } from "../helpers/run-node.js";

async function oneShot(configYaml: string, url: string): Promise<number | null> {
  const home = mkdtempSync(join(tmpdir(), "hermes-wiring-"));
  writeFileSync(join(home, "config.yaml"), configYaml);
  const args = ["dist/cli/main.js", "chat", "-q", "hi", "--provider", "anthropic", "--base-url", url];
  const { code } = await runNode([...args, "--api-key", "k", "--model", "claude-sonnet-4", "-Q"], {
    env: { ...process.env, HERMES_HOME: home },
  });
  rmSync(home, { recursive: true, force: true });
  return code;
}

test("prompt_caching in config.yaml decides the cache markers and their TTL", async () => {
  const fake = await startFakeProvider({ fallback: { text: "ok" } });
  try {
    assert.equal(await oneShot("prompt_caching:\n  cache_ttl: 1h\n", fake.url), 0);
    const cached = JSON.stringify(fake.requests.at(-1)!.body);
    assert.match(cached, /"cache_control":\{"type":"ephemeral","ttl":"1h"\}/);
    assert.equal(await oneShot("prompt_caching:\n  enabled: false\n", fake.url), 0);
    assert.doesNotMatch(JSON.stringify(fake.requests.at(-1)!.body), /cache_control/);
  } finally {
    await fake.close();
  }
});

test("terminal.cwd in config.yaml is where commands run", async () => {
  const workdir = mkdtempSync(join(tmpdir(), "hermes-workdir-"));
  const fake = await startFakeProvider({
    script: [
      { toolCalls: [{ name: "terminal", arguments: { command: "pwd" } }] },
      (req) => ({ text: String(req.body.messages.at(-1).content) }),
    ],
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-wiring-"));
  try {
    writeFileSync(join(home, "config.yaml"), `terminal:\n  cwd: ${workdir}\n`);
    const args = ["dist/cli/main.js", "chat", "-q", "where?", "--provider", "custom", "--base-url", `${fake.url}/v1`];
    const { code, stdout } = await runNode([...args, "--api-key", "k", "--model", "m", "--yolo", "-Q"], {
      env: { ...process.env, HERMES_HOME: home },
    });
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(workdir.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&")));
  } finally {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  }
});

test("web.allow_private_urls in config.yaml lets web_extract read a loopback page; by default it is refused", async () => {
  const results: string[] = [];
  const fake = await startFakeProvider({
    fallback: (req) => {
      const last = req.body.messages.at(-1) as { role: string; content: string };
      if (last.role === "tool") {
        results.push(last.content);
        return { text: "read" };
      }
      return { toolCalls: [{ name: "web_extract", arguments: { urls: [`${fake.url}/v1/models`] } }] };
    },
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-wiring-"));
  const run = async (configYaml: string) => {
    writeFileSync(join(home, "config.yaml"), configYaml);
    const args = ["dist/cli/main.js", "chat", "-q", "read it", "--provider", "custom", "--base-url", `${fake.url}/v1`];
    const { code } = await runNode([...args, "--api-key", "k", "--model", "m", "-t", "web", "-Q"], {
      env: { ...process.env, HERMES_HOME: home, TAVILY_API_KEY: "", EXA_API_KEY: "", FIRECRAWL_API_KEY: "" },
    });
    assert.equal(code, 0);
  };
  try {
    await run("model:\n  context_length: 200000\n");
    assert.match(results.at(-1) ?? "", /allow_private_urls/);
    await run("model:\n  context_length: 200000\nweb:\n  allow_private_urls: true\n");
    assert.doesNotMatch(results.at(-1) ?? "", /allow_private_urls/);
    assert.match(results.at(-1) ?? "", /\\"data\\"/, "the page is the fake provider's model list");
  } finally {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a terminal backend other than local stops the run instead of running commands on this machine", async () => {
  const fake = await startFakeProvider({ fallback: { text: "should not be asked" } });
  const home = mkdtempSync(join(tmpdir(), "hermes-wiring-"));
  try {
    writeFileSync(join(home, "config.yaml"), "terminal:\n  backend: docker\n");
    const args = ["dist/cli/main.js", "chat", "-q", "hi", "--provider", "custom", "--base-url", `${fake.url}/v1`];
    const { code, stderr } = await runNode([...args, "--api-key", "k", "--model", "m"], {
      env: { ...process.env, HERMES_HOME: home },
    });
    assert.equal(code, 2);
    assert.match(stderr, /terminal\.backend: docker is not supported yet/);
    assert.match(stderr, /hermes config set terminal\.backend local/);
    assert.equal(fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length, 0);
  } finally {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a context engine or memory provider this build lacks is named on stderr, and the run goes on", async () => {
  const fake = await startFakeProvider({ fallback: { text: "fine" } });
  const home = mkdtempSync(join(tmpdir(), "hermes-wiring-"));
  try {
    writeFileSync(join(home, "config.yaml"), "context:\n  engine: lcm\nmemory:\n  provider: honcho\n");
    const args = ["dist/cli/main.js", "chat", "-q", "hi", "--provider", "custom", "--base-url", `${fake.url}/v1`];
    const { code, stdout, stderr } = await runNode([...args, "--api-key", "k", "--model", "m"], {
      env: { ...process.env, HERMES_HOME: home },
    });
    assert.equal(code, 0);
    assert.equal(stdout, "fine\n");
    assert.match(stderr, /context\.engine "lcm" is not available; the built-in compressor manages the context/);
    assert.match(
      stderr,
      /memory\.provider "honcho" is not available \(known: local\); memory stays in MEMORY\.md and USER\.md/,
    );
  } finally {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  }
});
