/**
 * The id of the running CLI build: the content hash of its bundles, published by the bundle
 * loader (src/cli/bundle-loader.ts). Undefined when the code runs from source or from tsc's
 * output, where no id tells one build from the next. Caches of derived data that must not
 * outlive the code that derived it key on this.
 */
const KEY = "__hermesBuildId";

export function buildId(): string | undefined {
  const id = (globalThis as Record<string, unknown>)[KEY];
  return typeof id === "string" ? id : undefined;
}

export function publishBuildId(id: string): void {
  (globalThis as Record<string, unknown>)[KEY] = id;
}
