/**
 * `hermes import hermes-python` into a PostgreSQL store: the same plan as the embedded store's
 * import (import-hermes-python.ts), written in one transaction, so an import that fails part
 * way leaves nothing behind and a repeat starts from the same marks.
 */
import {
  IMPORT_SOURCE,
  type ImportReport,
  type ImportSource,
  MESSAGE_INSERT_COLUMNS,
  mismatches,
  type SessionPlan,
  sessionInsertValues,
  tally,
} from "../import-hermes-python.js";
import { PgConnection, type Queryable } from "./connection.js";
import { toPgText } from "./text.js";

/** Messages per INSERT statement (11 parameters each, well under PostgreSQL's 65,535). */
const MESSAGES_PER_STATEMENT = 500;
const MESSAGE_COLUMNS = MESSAGE_INSERT_COLUMNS.split(", ").length;

export async function importIntoPostgres(url: string, source: ImportSource, report: ImportReport): Promise<void> {
  const connection = await PgConnection.open(url);
  try {
    report.target = connection.location;
    const added = await connection.guard(() =>
      connection.transaction(async (client) => {
        const marks = new Map(
          (
            await client.query<{ session_id: string; last_source_message_id: number }>(
              "SELECT session_id, last_source_message_id FROM import_marks WHERE source = $1",
              [IMPORT_SOURCE],
            )
          ).rows.map((row) => [row.session_id, Number(row.last_source_message_id)]),
        );
        const taken = new Set(
          (
            await client.query<{ id: string }>("SELECT id FROM sessions WHERE id = ANY($1::text[])", [
              source.sessionIds.filter((id) => !marks.has(id)),
            ])
          ).rows.map((row) => row.id),
        );
        const addedIds: string[] = [];
        for (const id of source.sessionIds) {
          if (taken.has(id)) {
            report.sessions.idTaken.push(id);
            continue;
          }
          const plan = source.plan(id, marks.get(id));
          await writeSession(client, plan);
          if (plan.insert) addedIds.push(id);
          tally(report, plan);
        }
        return addedIds;
      }),
    );
    report.mismatches = await mismatches(source, added, async (id) => {
      const [row] = await connection.query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM messages WHERE session_id = $1",
        [id],
      );
      return row?.n ?? 0;
    });
  } finally {
    await connection.close();
  }
}

async function writeSession(client: Queryable, plan: SessionPlan): Promise<void> {
  const { insert } = plan;
  if (insert) {
    await client.query(
      `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, ended_at,
        message_count, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, total_tokens,
        estimated_cost, actual_cost, system_prompt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10, $11, $12, $13, $14, $15, $16)`,
      sessionInsertValues(plan, insert, toPgText),
    );
  } else {
    await client.query(
      `UPDATE sessions SET title = COALESCE(title, $1), ended_at = $2, prompt_tokens = $3, completion_tokens = $4,
        cache_read_tokens = $5, cache_write_tokens = $6, total_tokens = $7, estimated_cost = $8, actual_cost = $9
       WHERE id = $10`,
      [toPgText(plan.title), plan.endedAt, ...plan.counters, plan.id],
    );
  }
  for (let at = 0; at < plan.messages.length; at += MESSAGES_PER_STATEMENT) {
    const chunk = plan.messages.slice(at, at + MESSAGES_PER_STATEMENT);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      const first = params.length;
      params.push(plan.id, ...row.map((value) => (typeof value === "string" ? toPgText(value) : value)));
      return `(${Array.from({ length: MESSAGE_COLUMNS }, (_, i) => `$${first + i + 1}`).join(", ")})`;
    });
    await client.query(`INSERT INTO messages (${MESSAGE_INSERT_COLUMNS}) VALUES ${tuples.join(", ")}`, params);
  }
  await client.query(
    "UPDATE sessions SET message_count = message_count + $1, last_active = GREATEST(last_active, $2) WHERE id = $3",
    [plan.messages.length, plan.lastActive, plan.id],
  );
  await client.query(
    `INSERT INTO import_marks (source, session_id, last_source_message_id, imported_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (source, session_id) DO UPDATE SET last_source_message_id = EXCLUDED.last_source_message_id,
       imported_at = EXCLUDED.imported_at`,
    [IMPORT_SOURCE, plan.id, plan.lastSourceId, Date.now()],
  );
}
