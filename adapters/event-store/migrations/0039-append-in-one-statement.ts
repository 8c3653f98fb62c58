/**
 * `svc_append(lock_key, requests)` writes a whole group-commit batch in one statement,
 * so an append is one round trip instead of four (begin, `svc_append_lock`, insert,
 * commit). On a server each round trip of the appender waited about 2.5 ms for the
 * service's event loop against 0.3 ms of server time (bench/alert-intake.ts header), and
 * every intake request and every step transition waits for the appender.
 *
 * `requests` is a JSON array of requests, each an array of writes
 * `{"s": stream id, "x": expected version or null for any, "e": [{"t": type, "d": data, "m": metadata}]}`.
 * Under the appenders' advisory lock (taken first, as in 0020-append-lock.ts; a
 * volatile PL/pgSQL function reads with a fresh snapshot after it), each request in
 * order either conflicts, and one row names its first conflicting stream and that
 * stream's version (`actual`), or has all its events inserted with the next stream
 * versions, one row each with its version, its 1-based index in its write (`event`),
 * its position and its recording time. A request's conflict
 * leaves the others alone, and later requests see the versions earlier ones wrote.
 * Called outside an explicit transaction, the statement is its own transaction: the
 * lock is held until its commit, so positions still commit in order.
 */
import { sql, type Kysely } from 'kysely';

const appendFunction = `create function svc_append(lock_key bigint, requests jsonb)
     returns table (request integer, stream text, version integer, event integer, position_at bigint, recorded timestamptz, actual integer)
     language plpgsql volatile
   as $$
   declare
     versions jsonb;
     req jsonb;
     w jsonb;
     from_version integer;
   begin
     perform pg_advisory_xact_lock(lock_key);
     select coalesce(jsonb_object_agg(s.id, latest.stream_version), '{}'::jsonb) into versions
       from (select distinct w0->>'s' as id from jsonb_array_elements(requests) r0, jsonb_array_elements(r0) w0) s
       cross join lateral (
         select e.stream_version from events e where e.stream_id = s.id order by e.stream_version desc limit 1
       ) latest;
     for i in 0 .. jsonb_array_length(requests) - 1 loop
       req := requests -> i;
       stream := null;
       select c.value->>'s', coalesce((versions->>(c.value->>'s'))::integer, 0) into stream, actual
         from jsonb_array_elements(req) with ordinality as c(value, n)
         where jsonb_typeof(c.value->'x') = 'number'
           and (c.value->>'x')::integer <> coalesce((versions->>(c.value->>'s'))::integer, 0)
         order by c.n
         limit 1;
       if stream is not null then
         request := i;
         version := null;
         event := null;
         position_at := null;
         recorded := null;
         return next;
         continue;
       end if;
       for w in select value from jsonb_array_elements(req) loop
         from_version := coalesce((versions->>(w->>'s'))::integer, 0);
         return query
           with inserted as (
             insert into events (stream_id, stream_version, type, data, metadata)
             select w->>'s', from_version + ev.n::integer, ev.value->>'t', ev.value->'d', ev.value->'m'
             from jsonb_array_elements(w->'e') with ordinality as ev(value, n)
             order by ev.n
             returning events.stream_id, events.stream_version, events.global_position, events.recorded_at
           )
           select i, ins.stream_id, ins.stream_version, ins.stream_version - from_version, ins.global_position, ins.recorded_at, null::integer
           from inserted ins
           order by ins.stream_version;
         versions := versions || jsonb_build_object(w->>'s', from_version + jsonb_array_length(w->'e'));
       end loop;
     end loop;
   end
   $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(appendFunction).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop function svc_append(bigint, jsonb)').execute(db);
}
