#!/usr/bin/env node
// Entry point for `npx svc ...`: runs the TypeScript CLI through tsx's ESM loader.
import { register } from 'tsx/esm/api';
register();
await import('../runtime/cli/main.ts');
