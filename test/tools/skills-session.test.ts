import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { buildSkillsIndex } from "../../src/tools/skills/skills-index.js";
import { registerSkillsTools } from "../../src/tools/skills/tools.js";
import { createHarness, lastToolResults } from "../helpers/agent-harness.js";
import { skillMd, tempDir, writeSkill } from "./skills-helpers.js";

const SKILL_TOOLS = ["skills_list", "skill_view", "skill_manage"];

test("a skill added mid-session is usable at once but leaves the session's system prompt bytes unchanged", async () => {
  const home = tempDir("home");
  writeSkill(`${home}/skills`, "alpha", { description: "The skill that existed at session start." });
  const cwd = tempDir("cwd");
  // Built once at session start, the way a surface builds the prompt for a new session.
  const skillsIndex = buildSkillsIndex(discoverSkills({ home, cwd }).skills);
  const systemPrompt = buildSystemPrompt({ cwd, toolNames: SKILL_TOOLS, skillsIndex });

  const h = await createHarness(
    {
      script: [
        {
          toolCalls: [
            {
              name: "skill_manage",
              arguments: {
                action: "create",
                name: "beta",
                content: skillMd("beta", "Written by the agent mid-session.", "Steps."),
              },
            },
          ],
        },
        { text: "Saved the skill." },
        { toolCalls: [{ name: "skills_list", arguments: {} }] },
        { text: "Both skills are there." },
      ],
    },
    { tools: SKILL_TOOLS, systemPrompt, home, cwd },
  );
  try {
    registerSkillsTools(h.registry, { home });
    await h.agent.runConversation("Save what we learned as a skill.");
    await h.agent.runConversation("Which skills do you have now?");

    assert.equal(h.fake.requests.length, 4);
    const systems = h.fake.requests.map((r) => JSON.stringify(r.body.messages[0]));
    assert.equal(new Set(systems).size, 1, "every request carries the same system message bytes");
    const sent = String(h.fake.requests[0]!.body.messages[0].content);
    assert.match(sent, /- alpha: The skill that existed at session start\./);
    assert.doesNotMatch(sent, /beta/);

    const listing = JSON.parse(lastToolResults(h.fake.requests[3]!)[0] ?? "{}") as { skills: Array<{ name: string }> };
    assert.deepEqual(
      listing.skills.map((s) => s.name),
      ["alpha", "beta"],
      "the tools see the new skill right away",
    );
    const nextSessionIndex = buildSkillsIndex(discoverSkills({ home, cwd }).skills);
    assert.match(nextSessionIndex, /- beta: Written by the agent mid-session\./, "the next session's index has it");
  } finally {
    await h.close();
  }
});
