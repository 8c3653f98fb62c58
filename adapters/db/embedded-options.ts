/**
 * How every embedded PGlite database is opened, by the service and by the data-directory
 * upgrade alike: pg_trgm backs the trigram index of peer search (migration 0032), and a
 * database holding that index, or a dump of one being restored, needs it loaded.
 */
import type { PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export const embeddedOptions: PGliteOptions = { extensions: { pg_trgm } };
