/**
 * Walking config.yaml values alongside the config schema: finding keys the schema does not
 * know (reported as warnings) and the schema that governs one dotted key path.
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

/** Dotted paths of keys in `value` that the schema has no place for. */
export function findUnknownKeys(
  schema: AnySchema,
  value: unknown,
  prefix = "",
): Array<{ path: string; known: string[] }> {
  const shaped = unwrapSchema(schema);
  const found: Array<{ path: string; known: string[] }> = [];
  if (shaped instanceof ObjectSchema && isPlainObject(value)) {
    const shape = shaped.shape as Record<string, AnySchema>;
    for (const [key, inner] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      const child = shape[key];
      if (child) found.push(...findUnknownKeys(child, inner, path));
      else found.push({ path, known: Object.keys(shape) });
    }
  } else if (shaped instanceof RecordSchema && isPlainObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      found.push(...findUnknownKeys(shaped.valueType as AnySchema, inner, prefix ? `${prefix}.${key}` : key));
    }
  } else if (shaped instanceof ArraySchema && Array.isArray(value)) {
    value.forEach((inner, index) => {
      found.push(...findUnknownKeys(shaped.element as AnySchema, inner, `${prefix}[${index}]`));
    });
  }
  return found;
}

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
