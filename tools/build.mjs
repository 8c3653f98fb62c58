/**
 * Compiles the service to dist/ (docs/operations.md "The compiled build"): one esbuild
 * bundle of runtime/cli/main.ts with code splitting, so `svc --help` loads the parser alone
 * and each command loads its own chunk. `make run`, the image and the end-to-end tests run
 * this output through bin/svc.js; nothing runs TypeScript at run time.
 *
 * Usage: node tools/build.mjs   (writes dist/svc.js, dist/chunk-*.js, their source maps, and
 * dist/meta.json, esbuild's metafile: which module went into which chunk, which chunk imports which)
 */
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * Packages left to Node's resolver instead of the bundle, each because it finds files
 * beside its own module at run time or loads native code:
 * - PGlite (both majors) and its tools read their WebAssembly and data files from their folder;
 * - ssh2 and cpu-features may load a native addon;
 * - pino starts its transports as worker threads from files of its own;
 * - the KurrentDB client loads gRPC with files of its own;
 * - PDFKit reads its standard fonts' metrics through its own package imports (`#standard-fonts/...`).
 */
const external = ['@electric-sql/pglite', 'pglite-pg17', 'pglite-tools-pg17', 'ssh2', 'cpu-features', 'pino', '@kurrent/kurrentdb-client', 'pdfkit'];

const outdir = new URL('../dist/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { svc: new URL('../runtime/cli/main.ts', import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  external,
  // Bundled CommonJS packages call require(); an ES module has none, so each chunk makes one.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(`${outdir}meta.json`, JSON.stringify(result.metafile));
