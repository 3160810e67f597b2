/**
 * Imports an ES module found at run time (a plugin) by its file URL. The CLI bundle turns its
 * own import() calls into require() (see scripts/bundle-cli.mjs), which cannot load a file URL
 * or an ES module by its package type; the CLI's entry, a real ES module, hands the bundle its
 * import() through `globalThis.__hermesImport`.
 */
type Importer = (specifier: string) => Promise<Record<string, unknown>>;

export function importModule(url: string): Promise<Record<string, unknown>> {
  const importer = (globalThis as { __hermesImport?: Importer }).__hermesImport;
  return importer ? importer(url) : (import(url) as Promise<Record<string, unknown>>);
}
