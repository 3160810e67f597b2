/** A compact UTC time for file names: `20260102T030405Z`. */
export function utcStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/[-:]/g, "");
}
