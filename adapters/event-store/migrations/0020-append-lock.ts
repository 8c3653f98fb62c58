/**
 * One round trip fewer per event-store append (postgres.ts):
 * `svc_append_lock(lock_key, stream_ids)` takes the appenders' advisory lock and then
 * returns the current version of each given stream that has events.
 *
 * It must be a VOLATILE PL/pgSQL function: a plain `select pg_advisory_xact_lock(..),
 * (select max(..))` reads with the snapshot taken when the statement began, before the
 * lock was granted, and would miss the events of the appender it waited for; a
 * volatile function takes a fresh snapshot for each query it runs, so the version
 * read sees everything committed before the lock was granted.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create function svc_append_lock(lock_key bigint, stream_ids text[])
     returns table (stream_id text, version integer)
     language plpgsql volatile
   as $$
   begin
     perform pg_advisory_xact_lock(lock_key);
     return query
       select e.stream_id, max(e.stream_version)
       from events e
       where e.stream_id = any(stream_ids)
       group by e.stream_id;
   end
   $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop function svc_append_lock(bigint, text[])').execute(db);
}
