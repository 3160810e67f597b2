#!/usr/bin/env node
// Second half of `npm run build`: replaces tsc's dist/cli/main.js with an esbuild bundle, so a
// run of `hermes` has Node's ESM loader resolve, read and compile a few dozen files instead of
// ~200. The entry is self-contained (`hermes --version` reads one file); the command tree and
// everything it imports lazily live in dist/cli/chunks/, split at every dynamic import().
// The library (dist/index.js and the rest of dist/) stays tsc's plain output.
// dist/cli/bundle-meta.json (esbuild's metafile) maps every output file to the modules it holds.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI_DIR = "dist/cli";
const ENTRY = `${CLI_DIR}/main.js`;
const CHUNKS_DIR = `${CLI_DIR}/chunks`;
const METAFILE = `${CLI_DIR}/bundle-meta.json`;
/** First comment of every output file; how a second run recognises its own output. */
const MARKER = "// hermes-cli-bundle (scripts/bundle-cli.mjs)";

/**
 * Small pure-JS packages on the start-up path, cheaper inlined than loaded file by file (yaml
 * and commander are CommonJS spread over dozens of files), and better-sqlite3's JavaScript
 * half (its compiled addon still loads from node_modules; package.json pins the version
 * exactly, so the inlined wrapper always matches the installed addon). Every other package
 * stays an ordinary import from node_modules: large and lazily loaded (@aws-sdk/*, the MCP
 * SDK, pi-tui, @clack/prompts), or also imported by those packages (zod, which the MCP SDK uses
 * too: one copy in the process, not two).
 */
const BUNDLED_PACKAGES = new Set(["commander", "yaml", "eventsource-parser", "better-sqlite3"]);

const builtins = new Set(builtinModules);

function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const externalPackages = {
  name: "external-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:") || builtins.has(args.path)) return { path: args.path, external: true };
      return BUNDLED_PACKAGES.has(packageName(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

/** The entry reaches the command tree only through its dynamic import of the chunk's entry. */
const programInChunks = {
  name: "program-in-chunks",
  setup(b) {
    b.onResolve({ filter: /^\.\/program\.js$/ }, (args) =>
      args.kind === "dynamic-import" ? { path: "./chunks/program.js", external: true } : undefined,
    );
  },
};

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  write: false,
  metafile: true,
  // Minifying (whitespace and syntax, or identifiers too with names kept) measured no faster
  // on a one-shot run, and unminified chunks keep stack traces readable.
  minify: false,
  legalComments: "none",
  logLevel: "warning",
};

if (readFileSync(join(ROOT, ENTRY), "utf8").includes(MARKER)) {
  console.error(`bundle-cli: ${ENTRY} is already a bundle; run \`npm run build\` (tsc, then this step)`);
  process.exit(1);
}

// Bundled on its own and without splitting, the entry shares no chunk with the command tree.
const entry = await build({
  ...common,
  entryPoints: { main: ENTRY },
  outdir: CLI_DIR,
  plugins: [programInChunks, externalPackages],
  banner: { js: MARKER },
});

const program = await build({
  ...common,
  entryPoints: { program: `${CLI_DIR}/program.js` },
  outdir: CHUNKS_DIR,
  chunkNames: "[name]-[hash]",
  splitting: true,
  plugins: [externalPackages],
  // esbuild turns a bundled CommonJS package's require() of a Node built-in into a call of
  // the `require` in scope, which an ES module lacks.
  banner: {
    js: `${MARKER}\nimport { createRequire as __hermesCreateRequire } from "node:module";\nconst require = __hermesCreateRequire(import.meta.url);`,
  },
});

const outputFiles = [...entry.outputFiles, ...program.outputFiles];
rmSync(join(ROOT, CHUNKS_DIR), { recursive: true, force: true });
for (const file of outputFiles) {
  await mkdir(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
const metafile = {
  inputs: { ...entry.metafile.inputs, ...program.metafile.inputs },
  outputs: { ...entry.metafile.outputs, ...program.metafile.outputs },
};
writeFileSync(join(ROOT, METAFILE), JSON.stringify(metafile));

const kib = Math.round(outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024);
console.log(`bundle-cli: ${ENTRY} + ${outputFiles.length - 1} files in ${CHUNKS_DIR}/ (${kib} KiB)`);
