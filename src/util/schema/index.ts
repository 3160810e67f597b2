/**
 * Validation schemas with zod's API shape (see ./core.ts for why this is not zod). Import as
 * `import { z } from ".../util/schema/index.js"` and write schemas as with zod.
 */
export * as z from "./builders.js";
export {
  type AnySchema,
  type ErrorParam,
  type Issue,
  type JsonSchema,
  type SafeParseResult,
  Schema,
  SchemaError,
  WrapperSchema,
} from "./core.js";
export {
  ArraySchema,
  EnumSchema,
  NumberSchema,
  ObjectSchema,
  RecordSchema,
  type Shape,
  StringSchema,
} from "./types.js";
