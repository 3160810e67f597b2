/**
 * Walking config.yaml values alongside the zod schema: finding keys the schema does not
 * know (reported as warnings) and the schema that governs one dotted key path.
 */
import type { z } from "zod";

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Strip wrappers (defaults, optionals, preprocessing) down to the schema that shapes the value. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (["default", "prefault", "optional", "nullable", "catch", "readonly", "nonoptional"].includes(def.type)) {
      current = def.innerType as z.ZodType;
    } else if (def.type === "pipe") {
      // A preprocess is a pipe from a transform into the real schema: the output side shapes it.
      const input = defOf(def.in as z.ZodType);
      current = (input.type === "transform" ? def.out : def.in) as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The schema governing `path` (object keys, record keys, or array indexes), if any. */
export function schemaAt(root: z.ZodType, path: readonly string[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = root;
  for (const key of path) {
    if (!current) return undefined;
    const def = defOf(unwrapSchema(current));
    if (def.type === "object") current = (def.shape as Record<string, z.ZodType>)[key];
    else if (def.type === "record") current = def.valueType as z.ZodType;
    else if (def.type === "array" && /^\d+$/.test(key)) current = def.element as z.ZodType;
    else return undefined;
  }
  return current;
}

export function schemaKind(schema: z.ZodType): string {
  return defOf(unwrapSchema(schema)).type;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Dotted paths of keys in `value` that the schema has no place for. */
export function findUnknownKeys(
  schema: z.ZodType,
  value: unknown,
  prefix = "",
): Array<{ path: string; known: string[] }> {
  const def = defOf(unwrapSchema(schema));
  const found: Array<{ path: string; known: string[] }> = [];
  if (def.type === "object" && isPlainObject(value)) {
    const shape = def.shape as Record<string, z.ZodType>;
    for (const [key, inner] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      const child = shape[key];
      if (child) found.push(...findUnknownKeys(child, inner, path));
      else found.push({ path, known: Object.keys(shape) });
    }
  } else if (def.type === "record" && isPlainObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      found.push(...findUnknownKeys(def.valueType as z.ZodType, inner, prefix ? `${prefix}.${key}` : key));
    }
  } else if (def.type === "array" && Array.isArray(value)) {
    value.forEach((inner, index) => {
      found.push(...findUnknownKeys(def.element as z.ZodType, inner, `${prefix}[${index}]`));
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
