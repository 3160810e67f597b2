"use strict";
// The one-shot task's input and output with no agent around it: open a SQLite database with
// the better-sqlite3 build hermes uses on this Node, send the model request, run the command in
// bash, send the second request, store the four messages, print the answer. What a run of
// `hermes chat -q` cannot go below however lean the agent gets (bench/one-shot.ts).
// Usage: node bench/one-shot-floor.cjs <base URL ending in /v1> <database file>
const http = require("node:http");
const { spawn } = require("node:child_process");
const { openFloorDatabase } = require("./floor-sqlite.cjs");

const [baseUrl, databaseFile] = process.argv.slice(2);
const db = openFloorDatabase(databaseFile);
db.exec("create table if not exists messages (id integer primary key, role text, content text)");
const insert = db.prepare("insert into messages (role, content) values (?, ?)");

const tools = [
  {
    type: "function",
    function: {
      name: "terminal",
      description: "Run a shell command; returns its output and exit code.",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
  },
];

function complete(messages) {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve(body));
    });
    request.on("error", reject);
    request.end(JSON.stringify({ model: "m", stream: true, messages, tools }));
  });
}

/** The streamed reply's text and the command of its tool call, if any. */
function parse(sse) {
  let text = "";
  let args = "";
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
    text += delta.content ?? "";
    for (const call of delta.tool_calls ?? []) args += call.function?.arguments ?? "";
  }
  return { text, command: args ? JSON.parse(args).command : undefined };
}

function run(command) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => resolve(JSON.stringify({ output, exit_code: code })));
  });
}

async function main() {
  const messages = [{ role: "user", content: "Run `echo hello-bench` in the terminal and report its output." }];
  const first = parse(await complete(messages));
  const call = { id: "call_1", type: "function", function: { name: "terminal", arguments: "" } };
  call.function.arguments = JSON.stringify({ command: first.command });
  messages.push({ role: "assistant", content: null, tool_calls: [call] });
  messages.push({ role: "tool", tool_call_id: "call_1", content: await run(first.command) });
  const answer = parse(await complete(messages));
  messages.push({ role: "assistant", content: answer.text });
  db.transaction(() => {
    for (const message of messages) insert.run(message.role, JSON.stringify(message.content));
  })();
  db.close();
  process.stdout.write(`${answer.text}\n`);
}

main();
