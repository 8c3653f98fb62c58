/**
 * The baseline process of bench/restart.ts: the least a service must do before it can
 * answer. It opens the same database the service opens (the embedded PGlite data directory,
 * with the extension and the buffer cache (SVC_EMBEDDED_SHARED_BUFFERS, which restart.ts
 * always sets) the service uses, or a connection to the server of DATABASE_URL),
 * runs one query, then answers every HTTP request with 200 on 127.0.0.1:<port>.
 *
 * Usage: node bench/restart-baseline.mjs <data dir> <port>   (plain JavaScript: no transformer)
 */
import { createServer } from 'node:http';
import { join } from 'node:path';

const [dataDir, port] = process.argv.slice(2);
if (process.env.DATABASE_URL) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('select 1');
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${process.env.SVC_EMBEDDED_SHARED_BUFFERS}`];
  const db = new PGlite(join(dataDir, 'pgdata'), { extensions: { pg_trgm }, startParams });
  await db.query('select 1');
}
createServer((_req, res) => res.end('ok')).listen(Number(port), '127.0.0.1');
