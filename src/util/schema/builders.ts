/** zod-shaped builders, used as `z.object(...)`, `z.string()` and so on (see ./index.ts). */
import { type AnySchema, type ErrorParam, PreprocessSchema } from "./core.js";
import {
  ArraySchema,
  BooleanSchema,
  EnumSchema,
  LiteralSchema,
  NumberSchema,
  ObjectSchema,
  RecordSchema,
  type Shape,
  StringSchema,
  UnionSchema,
  UnknownSchema,
} from "./types.js";

export type { AnySchema, input, output, output as infer } from "./core.js";
export type { ObjectInput, ObjectOutput, Shape } from "./types.js";

export const string = (error?: ErrorParam) => new StringSchema(error);
export const number = (error?: ErrorParam) => new NumberSchema(error);
export const boolean = (error?: ErrorParam) => new BooleanSchema(error);
export const unknown = () => new UnknownSchema();
export const literal = <const T extends string | number | boolean>(value: T, error?: ErrorParam) =>
  new LiteralSchema(value, error);
const nullValue = (error?: ErrorParam) => new LiteralSchema(null, error);
const enumOf = <const T extends readonly [string, ...string[]]>(values: T, error?: ErrorParam) =>
  new EnumSchema<T[number]>(values, error);

export { enumOf as enum, nullValue as null };

export const array = <E extends AnySchema>(element: E, error?: ErrorParam) => new ArraySchema(element, error);
/** Unknown keys are dropped from the output. */
export const object = <S extends Shape>(shape: S, error?: ErrorParam) => new ObjectSchema(shape, false, error);
/** Unknown keys are kept in the output. */
export const looseObject = <S extends Shape>(shape: S, error?: ErrorParam) =>
  new ObjectSchema<S, import("./types.js").ObjectOutput<S> & Record<string, unknown>>(shape, true, error);
export const record = <V extends AnySchema>(key: StringSchema, value: V, error?: ErrorParam) =>
  new RecordSchema(key, value, error);
export const union = <const O extends readonly [AnySchema, ...AnySchema[]]>(options: O, error?: ErrorParam) =>
  new UnionSchema(options, error);
/** Transform the raw input before `schema` checks it. */
export const preprocess = <S extends AnySchema>(transform: (value: unknown) => unknown, schema: S) =>
  new PreprocessSchema(transform, schema);
