#!/usr/bin/env node
// Second half of `npm run build`: bundles the CLI so a run of `hermes` compiles one script
// instead of resolving, reading and compiling ~200 modules, and can reuse V8's bytecode from
// the previous run (src/cli/bundle-loader.ts keeps a code cache beside the bundle).
//
// - dist/cli/hermes.cjs: the command tree (tsc's dist/cli/program.js and what it imports) and
//   what a one-shot run reaches through import(), one CommonJS script run through node:vm by the
//   entry. Modules reached through import() stay lazy: esbuild initialises them on first import.
// - dist/cli/hermes-more.cjs: every other module (the terminal UI, the surfaces, the PostgreSQL
//   store, ...), loaded the same way the first time a module of it is imported. Each module is
//   in exactly one of the two; they reach each other's through `chunkModule(name)`, which the
//   loader calls for a require() of `hermes-chunk:<name>` (src/cli/bundle-loader.ts).
// - dist/cli/main.js: replaces tsc's entry; self-contained, so `hermes --version` reads one
//   file. The bundle's content hash is compiled into it and names the code cache.
//
// The library (dist/index.js and the rest of dist/) stays tsc's plain output.
// dist/cli/bundle-meta.json (esbuild's metafile) maps both outputs to the modules they hold.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// tsc's output of the loader, which runs the bundles: how it expects them wrapped.
const { BUNDLE_WRAPPER } = await import("../dist/cli/bundle-loader.js");
const CLI_DIR = "dist/cli";
const ENTRY = `${CLI_DIR}/main.js`;
const BUNDLE = `${CLI_DIR}/hermes.cjs`;
const METAFILE = `${CLI_DIR}/bundle-meta.json`;
/** First comment of every output file; how a second run recognises its own output. */
const MARKER = "// hermes-cli-bundle (scripts/bundle-cli.mjs)";

/**
 * Packages inlined into the bundle: small pure-JS ones on the start-up path (commander and
 * eventsource-parser), and better-sqlite3's JavaScript half, both the release Node 20 uses and
 * the Node-API one newer Nodes use (each addon still loads from node_modules, by the path
 * src/state/sqlite-driver.ts passes; package.json pins both versions exactly, so the inlined
 * wrapper always matches the installed addon). Every other package stays a require() or import() of
 * node_modules at run time: large and lazily loaded (@aws-sdk/*, the MCP SDK, pi-tui,
 * @clack/prompts), needed only off the start-up path (yaml: config.yaml beyond the simple
 * subset, config edits), or also imported by those packages (zod, which the MCP SDK uses:
 * one copy in the process, not two). Node >= 20.19 can require() the ES-module-only ones.
 */
const BUNDLED_PACKAGES = new Set(["commander", "eventsource-parser", "better-sqlite3", "better-sqlite3-napi"]);

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

/**
 * commander requires node:child_process as it loads, for executable subcommands (`hermes-foo`
 * files), which this CLI has none of; loading it costs `hermes --help` and every command a few
 * milliseconds on Node 24. The inlined copy takes it on first use instead. If a commander
 * upgrade changes that line, the build stops here rather than quietly losing the change.
 */
const EAGER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyCommanderChildProcess = {
  name: "lazy-commander-child-process",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes(EAGER_CHILD_PROCESS)) {
        throw new Error(`${args.path} no longer says ${EAGER_CHILD_PROCESS}: update lazyCommanderChildProcess`);
      }
      const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(EAGER_CHILD_PROCESS, lazy), loader: "js" };
    });
  },
};

/** The entry reaches the command tree through the bundle, or tsc's ./program.js outside a build. */
const programStaysOutside = {
  name: "program-stays-outside",
  setup(b) {
    b.onResolve({ filter: /^\.\/program\.js$/ }, () => ({ path: "./program.js", external: true }));
  },
};

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  target: "node20.19",
  write: false,
  metafile: true,
  // Unminified: the code cache makes parsing cheap, and stack traces stay readable.
  minify: false,
  legalComments: "none",
  logLevel: "warning",
};

/**
 * esbuild escapes non-ASCII text in strings but leaves it in regular expressions and comments.
 * One such character makes V8 hold the whole 2 MB source as a two-byte string, and makes the
 * loader decode UTF-8; an ASCII bundle is read as latin1 straight into a one-byte string
 * (src/cli/bundle-loader.ts). `\uXXXX` means the same code unit in a regular expression (with
 * or without the u flag, a pair of escaped surrogates is one code point) and nothing in a comment.
 */
function asciiOnly(file) {
  const text = file.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return { path: file.path, contents: Buffer.from(text, "latin1") };
}

/** The bundle as the function the loader runs, so the loader compiles the file's text as is. */
function wrapped(file) {
  const { head, tail } = BUNDLE_WRAPPER;
  return {
    path: file.path,
    contents: Buffer.concat([Buffer.from(head, "latin1"), file.contents, Buffer.from(tail, "latin1")]),
  };
}

if (readFileSync(join(ROOT, ENTRY), "utf8").includes(MARKER)) {
  console.error(`bundle-cli: ${ENTRY} is already a bundle; run \`npm run build\` (tsc, then this step)`);
  process.exit(1);
}

/**
 * The modules a one-shot run imports with import() besides those the command tree imports
 * statically: the chat command, the default wire protocol and the embedded session store. What
 * they import statically comes with them; everything else reached only through import() goes
 * into the second bundle. A one-shot run that loads it still works, only slower:
 * test/cli/code-cache-kinds.test.ts checks that it does not.
 */
const FIRST_BUNDLE_ROOTS = [
  `${CLI_DIR}/program.js`,
  `${CLI_DIR}/commands/chat.js`,
  "dist/llm/transports/chat-completions.js",
  "dist/state/sqlite-session-store.js",
  // Imported when config.yaml is not as last validated (src/state/config-cache.ts): the first
  // run after a build or an edit.
  "dist/state/config-validate.js",
];
const MORE_BUNDLE = `${CLI_DIR}/hermes-more.cjs`;
const CHUNK_PREFIX = "hermes-chunk:";

const bundleOptions = {
  ...common,
  format: "cjs",
  // Every module of the bundle shares one URL: the bundle's own, passed in by the loader.
  define: { "import.meta.url": "__hermesBundleUrl" },
  // import() of a package becomes require(): Node 20 loses the import() callback of a script
  // compiled from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and Node >= 20.19
  // can require() ES modules.
  supported: { "dynamic-import": false },
  banner: { js: MARKER },
};

// The whole import graph, from one bundle of everything, to split it by.
const whole = await build({
  ...bundleOptions,
  entryPoints: [`${CLI_DIR}/program.js`],
  outfile: BUNDLE,
  plugins: [externalPackages, lazyCommanderChildProcess],
});
const graph = whole.metafile.inputs;
const first = new Set();
for (const pending = [...FIRST_BUNDLE_ROOTS]; pending.length > 0; ) {
  const input = pending.pop();
  if (first.has(input)) continue;
  if (!graph[input]) throw new Error(`bundle-cli: ${input} is not part of the command tree; update FIRST_BUNDLE_ROOTS`);
  first.add(input);
  for (const edge of graph[input].imports)
    if (!edge.external && edge.kind !== "dynamic-import") pending.push(edge.path);
}
// Bundled packages stay in the first bundle: one copy of each, wherever they are used.
for (const input of Object.keys(graph)) if (input.startsWith("node_modules/")) first.add(input);
const more = new Set(Object.keys(graph).filter((input) => !first.has(input)));
/** The modules each bundle must hand to the other: those the other imports. */
const exposedBy = { first: new Set(), more: new Set() };
for (const [input, { imports }] of Object.entries(graph)) {
  for (const edge of imports) {
    if (edge.external) continue;
    if (first.has(input) && more.has(edge.path)) exposedBy.more.add(edge.path);
    if (more.has(input) && first.has(edge.path)) exposedBy.first.add(edge.path);
  }
}

/** Imports of modules that live in the other bundle become require()s of `hermes-chunk:<input>`. */
function otherBundle(others) {
  return {
    name: "other-bundle",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.resolving || args.kind === "entry-point") return undefined;
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        const input = relative(ROOT, resolved.path).split(sep).join("/");
        return others.has(input) ? { path: `${CHUNK_PREFIX}${input}`, external: true } : undefined;
      });
    },
  };
}

/** A bundle's entry: `chunkModule(name)` hands out its modules that the other bundle imports. */
function chunkEntry(exposed, head) {
  const cases = [...exposed]
    .sort()
    .map((input) => `    case ${JSON.stringify(input)}: return require(${JSON.stringify(`./${input}`)});`);
  return `${head}
export function chunkModule(name) {
  switch (name) {
${cases.join("\n")}
    default: return undefined;
  }
}
`;
}

async function buildChunk(outfile, entry, others) {
  const result = await build({
    ...bundleOptions,
    stdin: { contents: entry, resolveDir: ROOT, sourcefile: `${outfile}.entry.js`, loader: "js" },
    outfile,
    plugins: [externalPackages, lazyCommanderChildProcess, otherBundle(others)],
  });
  const inputs = Object.keys(result.metafile.outputs[outfile]?.inputs ?? {});
  const strays = inputs.filter((input) => others.has(input));
  if (strays.length > 0) throw new Error(`bundle-cli: ${outfile} took in modules of the other bundle: ${strays}`);
  return result;
}

const program = await buildChunk(BUNDLE, chunkEntry(exposedBy.first, `export * from "./${CLI_DIR}/program.js";`), more);
const moreProgram = await buildChunk(MORE_BUNDLE, chunkEntry(exposedBy.more, ""), first);
const bundle = wrapped(asciiOnly(program.outputFiles[0]));
const moreBundle = wrapped(asciiOnly(moreProgram.outputFiles[0]));
const bundleId = createHash("sha256").update(bundle.contents).update(moreBundle.contents).digest("hex").slice(0, 16);

const entry = await build({
  ...common,
  entryPoints: { main: ENTRY },
  outdir: CLI_DIR,
  format: "esm",
  plugins: [programStaysOutside, externalPackages],
  define: { __HERMES_BUNDLE_ID__: JSON.stringify(bundleId) },
  banner: { js: MARKER },
});

// Code caches of earlier builds can never match again.
for (const name of readdirSync(join(ROOT, CLI_DIR))) {
  if (name.endsWith(".v8cache") || name.endsWith(".tmp")) rmSync(join(ROOT, CLI_DIR, name), { force: true });
}
rmSync(join(ROOT, CLI_DIR, "chunks"), { recursive: true, force: true });
const outputFiles = [...entry.outputFiles, bundle, moreBundle];
for (const file of outputFiles) writeFileSync(file.path, file.contents);
const metafile = {
  inputs: { ...entry.metafile.inputs, ...graph },
  outputs: { ...entry.metafile.outputs, ...program.metafile.outputs, ...moreProgram.metafile.outputs },
};
writeFileSync(join(ROOT, METAFILE), JSON.stringify(metafile));

const kib = Math.round(outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024);
console.log(
  `bundle-cli: ${ENTRY} + ${BUNDLE} + ${MORE_BUNDLE} (${kib} KiB, ${first.size} + ${more.size} modules, bundle ${bundleId})`,
);
