/**
 * PostgreSQL text cannot hold U+0000, which tool output and prompts may contain. Text columns go
 * through this reversible escape: U+0000 becomes U+FDD0 "0" and U+FDD0 itself is doubled (a
 * noncharacter that ordinary text does not carry), so every string reads back exactly as written.
 */
const ESCAPE = "\uFDD0";

export function toPgText<T extends string | null | undefined>(value: T): T {
  if (typeof value !== "string" || (!value.includes("\u0000") && !value.includes(ESCAPE))) return value;
  return value.replaceAll(ESCAPE, ESCAPE + ESCAPE).replaceAll("\u0000", `${ESCAPE}0`) as T;
}

export function fromPgText<T extends string | null | undefined>(value: T): T {
  if (typeof value !== "string" || !value.includes(ESCAPE)) return value;
  return value.replace(/\uFDD0(\uFDD0|0)/g, (_, next: string) => (next === "0" ? "\u0000" : ESCAPE)) as T;
}
