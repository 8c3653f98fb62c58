#!/usr/bin/env node
// Entry point of `svc` (and `npx svc`): runs the compiled build in dist/ (tools/build.mjs,
// `make build`). Node's compile cache keeps the parsed bundle between starts (Node >= 22.1).
import { existsSync } from 'node:fs';
import module from 'node:module';

const entry = new URL('../dist/svc.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('svc: dist/svc.js is missing: run make build\n');
  process.exit(1);
}
module.enableCompileCache?.();
await import(entry.href);
