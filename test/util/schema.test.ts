import assert from "node:assert/strict";
import { test } from "node:test";
import { z as zod } from "zod";
import { z } from "../../src/util/schema/index.js";

/** The same schema written with both libraries: they must agree on every value below. */
type Pair = [name: string, ours: z.AnySchema, theirs: zod.ZodType];

const pairs: Pair[] = [
  ["string", z.string(), zod.string()],
  ["string length", z.string().min(2).max(4), zod.string().min(2).max(4)],
  ["number", z.number(), zod.number()],
  ["integer bounds", z.number().int().min(1).max(10), zod.number().int().min(1).max(10)],
  ["nonnegative", z.number().nonnegative(), zod.number().nonnegative()],
  ["boolean", z.boolean(), zod.boolean()],
  ["enum", z.enum(["a", "b"]), zod.enum(["a", "b"])],
  ["literal", z.literal("function"), zod.literal("function")],
  ["null", z.null(), zod.null()],
  ["unknown", z.unknown(), zod.unknown()],
  ["array", z.array(z.string()).min(1).max(2), zod.array(zod.string()).min(1).max(2)],
  ["union", z.union([z.string(), z.number()]), zod.union([zod.string(), zod.number()])],
  ["record", z.record(z.string(), z.number()), zod.record(zod.string(), zod.number())],
  ["nullable", z.string().nullable(), zod.string().nullable()],
  ["optional", z.number().optional(), zod.number().optional()],
  ["default", z.number().default(3), zod.number().default(3)],
  [
    "object",
    z.object({
      name: z.string().describe("who"),
      age: z.number().int().optional(),
      tags: z.array(z.string()).default([]),
    }),
    zod.object({
      name: zod.string().describe("who"),
      age: zod.number().int().optional(),
      tags: zod.array(zod.string()).default([]),
    }),
  ],
  [
    "loose object",
    z.looseObject({ id: z.string(), n: z.number().nullable().optional().default(null) }),
    zod.looseObject({ id: zod.string(), n: zod.number().nullable().optional().default(null) }),
  ],
  [
    "nested section with prefault",
    z.object({ inner: z.object({ on: z.boolean().default(true) }).prefault({}) }),
    zod.object({ inner: zod.object({ on: zod.boolean().default(true) }).prefault({}) }),
  ],
];

const values: unknown[] = [
  undefined,
  null,
  0,
  1,
  2.5,
  -1,
  11,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  "ab",
  "abcde",
  "a",
  "function",
  true,
  [],
  ["x"],
  ["x", "y", "z"],
  [1],
  {},
  { name: "n" },
  { name: "n", age: 3, tags: ["t"], extra: 1 },
  { name: "n", age: 3.5 },
  { name: 1 },
  { id: "i", other: true },
  { id: "i", n: 4 },
  { inner: { on: false } },
  { inner: { on: "no" } },
  { a: 1, b: 2 },
  { a: "1" },
];

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** zod adds the safe-integer range to every integer; ours leaves it implicit. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === "maximum" && inner === MAX_SAFE) || (key === "minimum" && inner === -MAX_SAFE)) continue;
    if (key === "$schema") continue;
    out[key] = withoutSafeIntegerBounds(inner);
  }
  return out;
}

for (const [name, ours, theirs] of pairs) {
  test(`${name}: accepts, rejects and outputs exactly what zod does`, () => {
    for (const value of values) {
      const mine = ours.safeParse(value);
      const reference = theirs.safeParse(value);
      assert.equal(mine.success, reference.success, `${name} on ${JSON.stringify(value)}`);
      if (mine.success && reference.success) assert.deepEqual(mine.data, reference.data, `${name} output`);
      if (!mine.success && !reference.success) {
        const paths = (issues: ReadonlyArray<{ path: PropertyKey[] }>) => [
          ...new Set(issues.map((i) => JSON.stringify(i.path))),
        ];
        assert.deepEqual(
          paths(mine.error.issues),
          paths(reference.error.issues),
          `${name} issue paths on ${JSON.stringify(value)}`,
        );
      }
    }
  });

  test(`${name}: publishes the same JSON Schema as zod's input schema`, () => {
    assert.deepEqual(
      withoutSafeIntegerBounds(ours.toJSONSchema()),
      withoutSafeIntegerBounds(theirs.toJSONSchema({ io: "input", unrepresentable: "any" })),
    );
  });
}

test("issue messages say what was expected and what arrived", () => {
  const schema = z.object({ count: z.number().int().min(1), mode: z.enum(["a", "b"]) });
  const result = schema.safeParse({ count: "3", mode: "c" });
  assert.equal(result.success, false);
  assert.deepEqual(
    result.error?.issues.map((i) => [i.path.join("."), i.message]),
    [
      ["count", "Invalid input: expected number, received string"],
      ["mode", 'Invalid option: expected one of "a"|"b"'],
    ],
  );
  assert.match(z.number().int().safeParse(1.5).error?.issues[0]?.message ?? "", /expected int/);
  assert.match(
    z.string().min(2).safeParse("a").error?.issues[0]?.message ?? "",
    /Too small: expected string to have >=2/,
  );
});

test("custom messages replace the defaults, per schema and per check", () => {
  const plain = { error: () => "a whole number of at least 1" };
  const count = z.number(plain).int(plain).min(1, plain);
  for (const bad of ["x", 1.5, 0]) assert.equal(count.safeParse(bad).error?.issues[0]?.message, plain.error());
  assert.equal(z.string("text please").safeParse(1).error?.issues[0]?.message, "text please");
  assert.equal(z.string().min(1, { message: "not empty" }).safeParse("").error?.issues[0]?.message, "not empty");
});

test("refine adds an issue only when the value is otherwise valid", () => {
  const server = z
    .object({ command: z.string().optional(), url: z.string().optional() })
    .refine((s) => Boolean(s.command) !== Boolean(s.url), { error: () => "exactly one of command or url" });
  assert.equal(server.safeParse({ command: "x" }).success, true);
  assert.equal(server.safeParse({ command: "x", url: "y" }).error?.issues[0]?.message, "exactly one of command or url");
  assert.deepEqual(
    server.safeParse({ command: 1 }).error?.issues.map((i) => i.code),
    ["invalid_type"],
  );
});

test("preprocess rewrites the input before checking it", () => {
  const model = z.preprocess(
    (value) => (typeof value === "string" ? { default: value } : value),
    z.object({ default: z.string(), provider: z.string().default("auto") }),
  );
  assert.deepEqual(model.parse("gpt"), { default: "gpt", provider: "auto" });
  assert.deepEqual(model.parse({ default: "m", provider: "p" }), { default: "m", provider: "p" });
});

test("defaults are copied, so changing one result never changes the next", () => {
  const schema = z.object({ list: z.array(z.string()).default([]) });
  const first = schema.parse({});
  first.list.push("changed");
  assert.deepEqual(schema.parse({}).list, []);
});

test("parse throws a SchemaError listing every issue with its path", () => {
  const schema = z.object({ items: z.array(z.object({ id: z.string() })) });
  assert.throws(
    () => schema.parse({ items: [{ id: "ok" }, { id: 2 }] }),
    (error: Error) => error.name === "SchemaError" && /items\.1\.id: Invalid input/.test(error.message),
  );
});

test("describe returns a new schema and leaves the original untouched", () => {
  const base = z.string();
  const described = base.describe("a name");
  assert.equal(base.description, undefined);
  assert.deepEqual(described.toJSONSchema(), { description: "a name", type: "string" });
  assert.deepEqual(described.optional().toJSONSchema(), { description: "a name", type: "string" });
  assert.deepEqual(base.optional().describe("later").toJSONSchema(), { description: "later", type: "string" });
});
