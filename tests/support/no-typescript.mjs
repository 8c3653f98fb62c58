/**
 * `node --import tests/support/no-typescript.mjs bin/svc.js ...`: makes the process fail
 * on the first TypeScript module or tsx file it would load, so a test shows the service
 * runs its compiled build only (docs/operations.md "The compiled build").
 */
import { register } from 'node:module';

register('./no-typescript-hooks.mjs', import.meta.url);
