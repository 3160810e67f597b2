/**
 * Schema builders for config.yaml fields. Each one carries a plain-words description of the
 * values it accepts, which becomes the error message ("must be <accepted>") when a value is bad.
 */
import { baseUrlProblem } from "../util/base-url.js";
import { z } from "../util/schema/index.js";

export const accepts = (text: string) => ({ error: () => text });

export function bool(fallback: boolean) {
  return z.boolean(accepts("true or false")).default(fallback);
}

/** true, false, or a list of strings (which selects some of what true would allow). */
export function boolOrList(fallback: boolean, listMeans: string) {
  return z
    .union([z.boolean(), z.array(z.string())], accepts(`true, false, or a list of ${listMeans}`))
    .default(fallback);
}

/** "auto", true, false, or a list of strings (which selects some of what true would allow). */
export function autoBoolOrList(listMeans: string) {
  return z
    .union(
      [z.literal("auto"), z.boolean(), z.array(z.string())],
      accepts(`"auto", true, false, or a list of ${listMeans}`),
    )
    .default("auto" as const);
}

const ON_WORDS = new Set(["on", "true", "yes", "1"]);
const OFF_WORDS = new Set(["off", "false", "no", "0"]);

/** "auto", true or false; the words on/off and yes/no are read as booleans. */
export function autoOrBool() {
  return z
    .preprocess(
      (value) => {
        if (typeof value !== "string") return value;
        const word = value.trim().toLowerCase();
        return ON_WORDS.has(word) ? true : OFF_WORDS.has(word) ? false : word;
      },
      z.union([z.literal("auto"), z.boolean()], accepts('"auto", true or false')),
    )
    .default("auto" as const);
}

/** `agent.coding_context`: auto, focus, on or off (true and false read as on and off). */
export function codingModeField() {
  return z
    .preprocess(
      (value) => {
        if (typeof value === "boolean") return value ? "on" : "off";
        if (typeof value !== "string") return value;
        const word = value.trim().toLowerCase();
        if (ON_WORDS.has(word) || word === "always") return "on";
        if (OFF_WORDS.has(word) || word === "never") return "off";
        return word === "strict" || word === "lean" ? "focus" : word;
      },
      z.enum(["auto", "focus", "on", "off"] as const, accepts('one of "auto", "focus", "on", "off"')),
    )
    .default("auto");
}

/** A string, or a list of strings joined as lines. */
export function textOrLines() {
  return z
    .preprocess(
      (value) => (Array.isArray(value) && value.every((line) => typeof line === "string") ? value.join("\n") : value),
      z.string(accepts("a string or a list of strings")),
    )
    .default("");
}

/** An API base URL, or "" for none; anything else must be an http(s) URL with a host. */
export function baseUrlText() {
  return z
    .string(accepts("a URL such as http://127.0.0.1:11434/v1"))
    .refine((value) => value === "" || baseUrlProblem(value) === undefined, {
      error: () => 'an http(s) URL such as http://127.0.0.1:11434/v1 (with the scheme), or "" for none',
    })
    .default("");
}

export function text(fallback: string) {
  return z.string(accepts("a string")).default(fallback);
}

export function nonEmptyText() {
  const msg = accepts("a non-empty string");
  return z.string(msg).min(1, msg);
}

export function numberBetween(min: number, max: number, fallback: number) {
  const msg = accepts(`a number between ${min} and ${max}`);
  return z.number(msg).min(min, msg).max(max, msg).default(fallback);
}

export function integerBetween(min: number, max: number, fallback: number) {
  const msg = accepts(`a whole number between ${min} and ${max}`);
  return z.number(msg).int(msg).min(min, msg).max(max, msg).default(fallback);
}

export function integerAtLeast(min: number, fallback: number) {
  const msg = accepts(`a whole number of at least ${min}`);
  return z.number(msg).int(msg).min(min, msg).default(fallback);
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, accepts(`one of ${values.map((v) => JSON.stringify(v)).join(", ")}`));
}

export function stringList(fallback: string[] = []) {
  return z.array(z.string(accepts("a string")), accepts("a list of strings")).default(fallback);
}

/** Ids given as a list or as one comma-separated string (the original's form), as a list. */
export function idList() {
  return z
    .preprocess(
      (value) => {
        if (typeof value === "number") return [String(value)];
        if (typeof value === "string") {
          return value
            .split(",")
            .map((id) => id.trim())
            .filter(Boolean);
        }
        return Array.isArray(value) ? value.map((id) => (typeof id === "number" ? String(id) : id)) : value;
      },
      z.array(z.string(), accepts("a list of ids or a comma-separated string")),
    )
    .default([]);
}

export function stringMap() {
  return z.record(z.string(), z.string(accepts("a string")), accepts("a mapping of names to strings")).default({});
}

/** A mapping of settings whose own fields all have defaults, so `{}` (or nothing) is valid. */
export function section<S extends z.Shape>(shape: S) {
  return z.object(shape, accepts("a mapping of settings")).prefault({} as z.ObjectInput<S>);
}
