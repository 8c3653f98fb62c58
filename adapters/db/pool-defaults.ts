/**
 * The server connection pool's defaults, in a module of their own so configuration can read
 * them without loading a database driver (docs/configuration.md `SVC_DB_POOL_SIZE`,
 * `SVC_DB_POOL_IDLE_S`).
 */

/** Most connections one process opens to a PostgreSQL server unless told. */
export const DEFAULT_POOL_SIZE = 10;
/** How long an unused server connection stays open, ms, unless told; 0 keeps it. */
export const DEFAULT_POOL_IDLE_MS = 0;
