/** The concrete schemas: primitives, enums, literals, arrays, objects, records, unions. */
import {
  type AnySchema,
  type ErrorParam,
  INVALID,
  type input,
  type JsonSchema,
  type output,
  type ParseContext,
  Schema,
} from "./core.js";

interface Bound {
  value: number;
  error: ErrorParam | undefined;
}

function customMessage(error: ErrorParam | undefined): (() => string) | undefined {
  if (error === undefined) return undefined;
  if (typeof error === "string") return () => error;
  const chosen = error.error ?? error.message;
  if (chosen === undefined) return undefined;
  return typeof chosen === "function" ? chosen : () => chosen;
}

/** Shared by strings (length), numbers (value) and arrays (item count). */
abstract class BoundedSchema<Out> extends Schema<Out> {
  minimum: Bound | undefined;
  maximum: Bound | undefined;

  min(value: number, error?: ErrorParam): this {
    return this.with({ minimum: { value, error } } as Partial<this>);
  }
  max(value: number, error?: ErrorParam): this {
    return this.with({ maximum: { value, error } } as Partial<this>);
  }

  /** `measure` is the length, value or count compared with the bounds. */
  protected checkBounds(measure: number, ctx: ParseContext, noun: string, unit: string): boolean {
    const { minimum, maximum } = this;
    if (minimum && measure < minimum.value) {
      const text = `Too small: expected ${noun} to ${unit ? "have" : "be"} >=${minimum.value}${unit}`;
      this.issue(ctx, "too_small", text, customMessage(minimum.error));
      return false;
    }
    if (maximum && measure > maximum.value) {
      const text = `Too big: expected ${noun} to ${unit ? "have" : "be"} <=${maximum.value}${unit}`;
      this.issue(ctx, "too_big", text, customMessage(maximum.error));
      return false;
    }
    return true;
  }
}

export class StringSchema extends BoundedSchema<string> {
  readonly kind = "string";
  check(value: unknown, ctx: ParseContext): string | typeof INVALID {
    if (typeof value !== "string") return this.typeIssue(ctx, "string", value);
    return this.checkBounds(value.length, ctx, "string", " characters") ? value : INVALID;
  }
  protected jsonSchema(): JsonSchema {
    const json: JsonSchema = { type: "string" };
    if (this.minimum) json.minLength = this.minimum.value;
    if (this.maximum) json.maxLength = this.maximum.value;
    return json;
  }
}

export class NumberSchema extends BoundedSchema<number> {
  readonly kind = "number";
  integer: { error: ErrorParam | undefined } | undefined;

  int(error?: ErrorParam): this {
    return this.with({ integer: { error } } as Partial<this>);
  }
  nonnegative(error?: ErrorParam): this {
    return this.min(0, error);
  }
  check(value: unknown, ctx: ParseContext): number | typeof INVALID {
    if (typeof value !== "number" || !Number.isFinite(value)) return this.typeIssue(ctx, "number", value);
    if (this.integer && !Number.isSafeInteger(value)) {
      return this.issue(
        ctx,
        "invalid_type",
        "Invalid input: expected int, received number",
        customMessage(this.integer.error),
      );
    }
    return this.checkBounds(value, ctx, "number", "") ? value : INVALID;
  }
  protected jsonSchema(): JsonSchema {
    const json: JsonSchema = { type: this.integer ? "integer" : "number" };
    if (this.minimum) json.minimum = this.minimum.value;
    if (this.maximum) json.maximum = this.maximum.value;
    return json;
  }
}

export class BooleanSchema extends Schema<boolean> {
  readonly kind = "boolean";
  check(value: unknown, ctx: ParseContext): boolean | typeof INVALID {
    return typeof value === "boolean" ? value : this.typeIssue(ctx, "boolean", value);
  }
  protected jsonSchema(): JsonSchema {
    return { type: "boolean" };
  }
}

export class UnknownSchema extends Schema<unknown> {
  readonly kind = "unknown";
  check(value: unknown): unknown {
    return value;
  }
  protected jsonSchema(): JsonSchema {
    return {};
  }
}

type Literal = string | number | boolean | null;

export class LiteralSchema<T extends Literal> extends Schema<T> {
  readonly kind = "literal";
  constructor(
    readonly value: T,
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): T | typeof INVALID {
    if (value === this.value) return this.value;
    return this.issue(ctx, "invalid_value", `Invalid input: expected ${JSON.stringify(this.value)}`, this.typeError);
  }
  protected jsonSchema(): JsonSchema {
    if (this.value === null) return { type: "null" };
    return { type: typeof this.value, const: this.value };
  }
}

export class EnumSchema<T extends string> extends Schema<T> {
  readonly kind = "enum";
  constructor(
    readonly options: readonly T[],
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): T | typeof INVALID {
    if (typeof value === "string" && (this.options as readonly string[]).includes(value)) return value as T;
    const expected = this.options.map((o) => JSON.stringify(o)).join("|");
    return this.issue(ctx, "invalid_value", `Invalid option: expected one of ${expected}`, this.typeError);
  }
  protected jsonSchema(): JsonSchema {
    return { type: "string", enum: [...this.options] };
  }
}

export class ArraySchema<Element extends AnySchema> extends BoundedSchema<Array<output<Element>>> {
  readonly kind = "array";
  constructor(
    readonly element: Element,
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): Array<output<Element>> | typeof INVALID {
    if (!Array.isArray(value)) return this.typeIssue(ctx, "array", value);
    const before = ctx.issues.length;
    const out: Array<output<Element>> = [];
    value.forEach((item, index) => {
      ctx.path.push(index);
      out.push(this.element.check(item, ctx) as output<Element>);
      ctx.path.pop();
    });
    const inBounds = this.checkBounds(value.length, ctx, "array", " items");
    return inBounds && ctx.issues.length === before ? out : INVALID;
  }
  protected jsonSchema(): JsonSchema {
    const json: JsonSchema = { type: "array", items: this.element.toJSONSchema() };
    if (this.minimum) json.minItems = this.minimum.value;
    if (this.maximum) json.maxItems = this.maximum.value;
    return json;
  }
}

export type Shape = Record<string, AnySchema>;

/** Keys whose schema accepts undefined are optional in the inferred type. */
type OptionalKeys<S extends Shape, Side extends "in" | "out"> = {
  [K in keyof S]: undefined extends (Side extends "in" ? input<S[K]> : output<S[K]>) ? K : never;
}[keyof S];
type Flatten<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOutput<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S, "out">>]: output<S[K]> } & {
    [K in OptionalKeys<S, "out">]?: output<S[K]>;
  }
>;
export type ObjectInput<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S, "in">>]: input<S[K]> } & {
    [K in OptionalKeys<S, "in">]?: input<S[K]>;
  }
>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export class ObjectSchema<S extends Shape, Out = ObjectOutput<S>> extends Schema<Out, ObjectInput<S>> {
  readonly kind = "object";
  constructor(
    readonly shape: S,
    /** Keep keys the shape does not name (zod's looseObject); otherwise they are dropped. */
    readonly keepUnknownKeys: boolean,
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): Out | typeof INVALID {
    if (!isPlainObject(value)) return this.typeIssue(ctx, "object", value);
    const before = ctx.issues.length;
    const out: Record<string, unknown> = this.keepUnknownKeys ? { ...value } : {};
    for (const [key, schema] of Object.entries(this.shape)) {
      ctx.path.push(key);
      const checked = schema.check(value[key], ctx);
      ctx.path.pop();
      if (checked !== undefined) out[key] = checked;
      else if (key in value || (this.keepUnknownKeys && key in out)) out[key] = undefined;
    }
    return ctx.issues.length > before ? INVALID : (out as Out);
  }
  protected jsonSchema(): JsonSchema {
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const [key, schema] of Object.entries(this.shape)) {
      properties[key] = schema.toJSONSchema();
      if (!acceptsUndefined(schema)) required.push(key);
    }
    const json: JsonSchema = { type: "object", properties };
    if (required.length > 0) json.required = required;
    if (this.keepUnknownKeys) json.additionalProperties = {};
    return json;
  }
}

/** Whether a property with this schema may be left out (optional, or has a default). */
function acceptsUndefined(schema: AnySchema): boolean {
  if (schema.kind === "optional" || schema.kind === "default" || schema.kind === "prefault") return true;
  if (schema.kind === "unknown") return true;
  const inner = (schema as { inner?: AnySchema }).inner;
  return inner !== undefined && schema.kind !== "nullable" && acceptsUndefined(inner);
}

export class RecordSchema<Value extends AnySchema> extends Schema<
  Record<string, output<Value>>,
  Record<string, input<Value>>
> {
  readonly kind = "record";
  constructor(
    readonly keyType: Schema<string>,
    readonly valueType: Value,
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): Record<string, output<Value>> | typeof INVALID {
    if (!isPlainObject(value)) return this.typeIssue(ctx, "record", value);
    const before = ctx.issues.length;
    const out: Record<string, output<Value>> = {};
    for (const [key, inner] of Object.entries(value)) {
      ctx.path.push(key);
      if (this.keyType.check(key, ctx) !== INVALID) out[key] = this.valueType.check(inner, ctx) as output<Value>;
      ctx.path.pop();
    }
    return ctx.issues.length > before ? INVALID : out;
  }
  protected jsonSchema(): JsonSchema {
    return {
      type: "object",
      propertyNames: this.keyType.toJSONSchema(),
      additionalProperties: this.valueType.toJSONSchema(),
    };
  }
}

export class UnionSchema<Options extends readonly AnySchema[]> extends Schema<
  output<Options[number]>,
  input<Options[number]>
> {
  readonly kind = "union";
  constructor(
    readonly options: Options,
    error?: ErrorParam,
  ) {
    super(error);
  }
  check(value: unknown, ctx: ParseContext): output<Options[number]> | typeof INVALID {
    for (const option of this.options) {
      const trial: ParseContext = { path: ctx.path, issues: [] };
      const out = option.check(value, trial);
      if (out !== INVALID && trial.issues.length === 0) return out as output<Options[number]>;
    }
    return this.issue(ctx, "invalid_union", "Invalid input", this.typeError);
  }
  protected jsonSchema(): JsonSchema {
    const members = this.options.map((option) => option.toJSONSchema());
    const simpleTypes = members.every((m) => Object.keys(m).length === 1 && typeof m.type === "string");
    if (simpleTypes) return { type: members.map((m) => m.type) };
    return { anyOf: members };
  }
}
