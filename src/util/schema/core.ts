/**
 * A small validation library with the subset of zod's API this project uses: object, string,
 * number, boolean, enum, literal, array, record, union, null and unknown schemas, with
 * optional/nullable/default/prefault/refine/describe, custom messages, and JSON Schema output.
 *
 * It exists for start-up time: zod is ~750 KB of JavaScript and costs a one-shot run ~40 ms
 * before the first request, while every schema here is checked in microseconds. Schemas are
 * immutable (each method returns a new schema) and shaped like zod's, so a zod schema and one of
 * these are interchangeable wherever only `safeParse` and `toJSONSchema` are used.
 */

export interface Issue {
  path: PropertyKey[];
  message: string;
  code: string;
}

export class SchemaError extends Error {
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)).join("; "));
    this.name = "SchemaError";
  }
}

export type SafeParseResult<T> = { success: true; data: T; error?: never } | { success: false; error: SchemaError };

/** zod-style message override: a string, `{ error: "..." }`, `{ error: () => "..." }` or `{ message }`. */
export type ErrorParam = string | { error?: string | (() => string); message?: string };

function messageOf(param: ErrorParam | undefined): (() => string) | undefined {
  if (param === undefined) return undefined;
  if (typeof param === "string") return () => param;
  const { error, message } = param;
  if (typeof error === "function") return error;
  if (typeof error === "string") return () => error;
  if (typeof message === "string") return () => message;
  return undefined;
}

/** Where a check is in the value, and the issues found so far. */
export interface ParseContext {
  path: PropertyKey[];
  issues: Issue[];
}

export const INVALID: unique symbol = Symbol("invalid");
type Checked<T> = T | typeof INVALID;

export type JsonSchema = Record<string, unknown>;

function received(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

function clonePlain<T>(value: T): T {
  return value !== null && typeof value === "object" ? (structuredClone(value) as T) : value;
}

export abstract class Schema<Out = unknown, In = Out> {
  /** Type carriers only: never set at run time. */
  declare readonly _output: Out;
  declare readonly _input: In;
  abstract readonly kind: string;
  description: string | undefined;
  /** Message for this schema's own type error, from the builder's error parameter. */
  protected typeError: (() => string) | undefined;

  constructor(error?: ErrorParam) {
    this.typeError = messageOf(error);
  }

  /** Check `value` at `ctx.path`, adding issues; returns the output value or INVALID. */
  abstract check(value: unknown, ctx: ParseContext): Checked<Out>;
  protected abstract jsonSchema(): JsonSchema;

  protected issue(ctx: ParseContext, code: string, fallback: string, custom?: () => string): typeof INVALID {
    ctx.issues.push({ path: [...ctx.path], code, message: custom ? custom() : fallback });
    return INVALID;
  }

  protected typeIssue(ctx: ParseContext, expected: string, value: unknown): typeof INVALID {
    const fallback = `Invalid input: expected ${expected}, received ${received(value)}`;
    return this.issue(ctx, "invalid_type", fallback, this.typeError);
  }

  /** A copy of this schema with some fields changed (schemas are immutable). */
  protected with(changes: Partial<this>): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this)) as this, this, changes);
  }

  safeParse(value: unknown): SafeParseResult<Out> {
    const ctx: ParseContext = { path: [], issues: [] };
    const out = this.check(value, ctx);
    if (out === INVALID || ctx.issues.length > 0) return { success: false, error: new SchemaError(ctx.issues) };
    return { success: true, data: out };
  }

  parse(value: unknown): Out {
    const result = this.safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  }

  toJSONSchema(_options?: unknown): JsonSchema {
    const json = this.jsonSchema();
    return this.description === undefined ? json : { description: this.description, ...json };
  }

  describe(description: string): this {
    return this.with({ description } as Partial<this>);
  }

  optional(): OptionalSchema<this> {
    return new OptionalSchema(this);
  }

  nullable(): NullableSchema<this> {
    return new NullableSchema(this);
  }

  /** Use `value` when the input is undefined (the value is returned as is, not checked). */
  default(value: NoUndefined<Out>): DefaultSchema<this> {
    return new DefaultSchema(this, value, false);
  }

  /** Check `value` in place of an undefined input. */
  prefault(value: In): DefaultSchema<this> {
    return new DefaultSchema(this, value, true);
  }

  refine(predicate: (value: Out) => boolean, error?: ErrorParam): RefinedSchema<this> {
    return new RefinedSchema(this, predicate, messageOf(error));
  }
}

type NoUndefined<T> = T extends undefined ? never : T;
export type AnySchema = Schema<unknown, unknown>;
export type output<S> = S extends Schema<infer O, unknown> ? O : never;
export type input<S> = S extends Schema<unknown, infer I> ? I : never;

/** Schemas that wrap another one: optional, nullable, default, refine, preprocess. */
export abstract class WrapperSchema<Out, In, Inner extends AnySchema> extends Schema<Out, In> {
  constructor(readonly inner: Inner) {
    super();
    this.description = inner.description;
  }
}

export class OptionalSchema<Inner extends AnySchema> extends WrapperSchema<
  output<Inner> | undefined,
  input<Inner> | undefined,
  Inner
> {
  readonly kind = "optional";
  check(value: unknown, ctx: ParseContext): Checked<output<Inner> | undefined> {
    return value === undefined ? undefined : (this.inner.check(value, ctx) as Checked<output<Inner>>);
  }
  protected jsonSchema(): JsonSchema {
    return stripDescription(this.inner.toJSONSchema());
  }
}

export class NullableSchema<Inner extends AnySchema> extends WrapperSchema<
  output<Inner> | null,
  input<Inner> | null,
  Inner
> {
  readonly kind = "nullable";
  check(value: unknown, ctx: ParseContext): Checked<output<Inner> | null> {
    return value === null ? null : (this.inner.check(value, ctx) as Checked<output<Inner>>);
  }
  protected jsonSchema(): JsonSchema {
    const json = stripDescription(this.inner.toJSONSchema());
    const keys = Object.keys(json);
    if (typeof json.type === "string" && keys.length === 1) return { type: [json.type, "null"] };
    return { anyOf: [json, { type: "null" }] };
  }
}

export class DefaultSchema<Inner extends AnySchema> extends WrapperSchema<
  NoUndefined<output<Inner>>,
  input<Inner> | undefined,
  Inner
> {
  readonly kind: "default" | "prefault";
  constructor(
    inner: Inner,
    readonly fallback: unknown,
    readonly checkFallback: boolean,
  ) {
    super(inner);
    this.kind = checkFallback ? "prefault" : "default";
  }
  check(value: unknown, ctx: ParseContext): Checked<NoUndefined<output<Inner>>> {
    type Out = Checked<NoUndefined<output<Inner>>>;
    if (value !== undefined) return this.inner.check(value, ctx) as Out;
    return this.checkFallback
      ? (this.inner.check(clonePlain(this.fallback), ctx) as Out)
      : clonePlain(this.fallback as Out);
  }
  protected jsonSchema(): JsonSchema {
    return { ...stripDescription(this.inner.toJSONSchema()), default: this.fallback };
  }
}

export class RefinedSchema<Inner extends AnySchema> extends WrapperSchema<output<Inner>, input<Inner>, Inner> {
  readonly kind = "refine";
  constructor(
    inner: Inner,
    readonly predicate: (value: output<Inner>) => boolean,
    readonly refineError: (() => string) | undefined,
  ) {
    super(inner);
  }
  check(value: unknown, ctx: ParseContext): Checked<output<Inner>> {
    const before = ctx.issues.length;
    const out = this.inner.check(value, ctx) as Checked<output<Inner>>;
    if (out === INVALID || ctx.issues.length > before) return INVALID;
    return this.predicate(out) ? out : this.issue(ctx, "custom", "Invalid input", this.refineError);
  }
  protected jsonSchema(): JsonSchema {
    return stripDescription(this.inner.toJSONSchema());
  }
}

export class PreprocessSchema<Inner extends AnySchema> extends WrapperSchema<output<Inner>, unknown, Inner> {
  readonly kind = "preprocess";
  constructor(
    readonly transform: (value: unknown) => unknown,
    inner: Inner,
  ) {
    super(inner);
  }
  check(value: unknown, ctx: ParseContext): Checked<output<Inner>> {
    return this.inner.check(this.transform(value), ctx) as Checked<output<Inner>>;
  }
  protected jsonSchema(): JsonSchema {
    return stripDescription(this.inner.toJSONSchema());
  }
}

/** The inner schema's JSON without its description: the wrapper adds its own. */
function stripDescription(json: JsonSchema): JsonSchema {
  if (!("description" in json)) return json;
  const { description: _ignored, ...rest } = json;
  return rest;
}
