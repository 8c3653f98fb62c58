/**
 * `NODE_OPTIONS=--import <this file>` runs the service on PGlite 0.4 (PostgreSQL 17), the
 * engine of earlier builds, so a test can make a data directory as they wrote it.
 */
import { register } from 'node:module';

register('./pglite-pg17-hook.mjs', import.meta.url);
