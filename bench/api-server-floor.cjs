"use strict";
// A streamed chat completion's input and output with no agent around it: check the bearer key,
// parse the request, send the model the same request body hermes sends (its system prompt and
// tool schemas, taken from the fake provider), relay the streamed text as chat-completion
// chunks, and store the session and both messages (with the full-text index) in one SQLite
// transaction. What `hermes gateway run` cannot go below per request however lean the server
// gets (bench/api-server.ts).
// Usage: node bench/api-server-floor.cjs <provider base URL ending in /v1> <request template JSON file> <database file>
// Env: API_SERVER_KEY. Prints "listening on http://127.0.0.1:<port>" to stderr.
const http = require("node:http");
const { randomBytes, timingSafeEqual, createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const { openFloorDatabase } = require("./floor-sqlite.cjs");

const [baseUrl, templateFile, databaseFile] = process.argv.slice(2);
const template = JSON.parse(readFileSync(templateFile, "utf8"));
const systemMessage = template.messages.find((m) => m.role === "system");
const keyDigest = createHash("sha256").update(`Bearer ${process.env.API_SERVER_KEY}`).digest();

const db = openFloorDatabase(databaseFile);
db.pragma("synchronous = NORMAL");
db.exec(`
create table if not exists sessions (id text primary key, source text, started_at real, message_count integer);
create table if not exists messages (id integer primary key, session_id text, role text, content text, timestamp real);
create index if not exists idx_messages_session on messages(session_id, id);
create virtual table if not exists messages_fts using fts5(content, content='messages', content_rowid='id');
create trigger if not exists messages_fts_insert after insert on messages begin
  insert into messages_fts(rowid, content) values (new.id, new.content);
end;`);
const insertSession = db.prepare("insert into sessions values (?, 'api_server', ?, 2)");
const insertMessage = db.prepare("insert into messages (session_id, role, content, timestamp) values (?, ?, ?, ?)");
const store = db.transaction((id, question, answer) => {
  const now = Date.now() / 1000;
  insertSession.run(id, now);
  insertMessage.run(id, "user", question, now);
  insertMessage.run(id, "assistant", answer, now);
});

const provider = new http.Agent({ keepAlive: true });

function fail(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
}

function authorized(header) {
  return timingSafeEqual(
    createHash("sha256")
      .update(header ?? "")
      .digest(),
    keyDigest,
  );
}

function chunk(base, delta, finish) {
  const choice = { index: 0, delta, finish_reason: finish };
  return `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [choice] })}\n\n`;
}

function relay(res, body) {
  const messages = body.messages;
  const question = messages.at(-1).content;
  const sessionId = randomBytes(8).toString("hex");
  const base = {
    id: `chatcmpl-${randomBytes(12).toString("hex")}`,
    created: Math.floor(Date.now() / 1000),
    model: "hermes-agent",
  };
  const upstream = http.request(`${baseUrl}/chat/completions`, {
    method: "POST",
    agent: provider,
    headers: { "content-type": "application/json" },
  });
  upstream.on("response", (reply) => {
    res.writeHead(200, { "content-type": "text/event-stream", "x-hermes-session-id": sessionId });
    let out = chunk(base, { role: "assistant", content: "" }, null);
    let pending = "";
    let answer = "";
    reply.setEncoding("utf8");
    reply.on("data", (text) => {
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const line of lines) {
        if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
        const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
        if (!delta) continue;
        answer += delta;
        out += chunk(base, { content: delta }, null);
      }
      if (out) res.write(out);
      out = "";
    });
    reply.on("end", () => {
      store(sessionId, question, answer);
      res.end(`${chunk(base, {}, "stop")}data: [DONE]\n\n`);
    });
  });
  upstream.on("error", (error) => fail(res, 502, error.message));
  upstream.end(JSON.stringify({ ...template, messages: [systemMessage, ...messages] }));
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/v1/chat/completions") return fail(res, 404, "not found");
  if (!authorized(req.headers.authorization)) return fail(res, 401, "invalid API key");
  let text = "";
  req.setEncoding("utf8");
  req.on("data", (part) => {
    text += part;
  });
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(res, 400, "the body is not JSON");
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(res, 400, "messages is required");
    relay(res, body);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  db.close();
  process.exit(0);
});
