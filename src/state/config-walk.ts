/**
 * Walking config.yaml values alongside the config schema: the schema that governs one dotted
 * key path, defaults for empty keys, and typo suggestions.
 */
import { type AnySchema, ArraySchema, ObjectSchema, RecordSchema, WrapperSchema } from "../util/schema/index.js";

/** Strip wrappers (defaults, optionals, preprocessing, refinements) down to the schema that shapes the value. */
export function unwrapSchema(schema: AnySchema): AnySchema {
  let current = schema;
  while (current instanceof WrapperSchema) current = current.inner as AnySchema;
  return current;
}

/** The schema governing `path` (object keys, record keys, or array indexes), if any. */
export function schemaAt(root: AnySchema, path: readonly string[]): AnySchema | undefined {
  let current: AnySchema | undefined = root;
  for (const key of path) {
    if (!current) return undefined;
    const shaped = unwrapSchema(current);
    if (shaped instanceof ObjectSchema) current = (shaped.shape as Record<string, AnySchema>)[key];
    else if (shaped instanceof RecordSchema) current = shaped.valueType as AnySchema;
    else if (shaped instanceof ArraySchema && /^\d+$/.test(key)) current = shaped.element as AnySchema;
    else return undefined;
  }
  return current;
}

export function schemaKind(schema: AnySchema): string {
  return unwrapSchema(schema).kind;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** YAML writes an empty key (`compression:`) as null; treat that as "not set" so defaults apply. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== null && inner !== undefined) out[key] = dropNulls(inner);
  }
  return out;
}

/** The closest candidate by edit distance, when it is close enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
