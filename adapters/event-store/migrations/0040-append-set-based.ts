/**
 * `svc_append` (0039-append-in-one-statement.ts) writes a batch whose requests touch
 * distinct streams, the usual case, with one INSERT for all its events instead of one per
 * write, and without JIT compilation.
 *
 * Why: 0039 ran a conflict check, a write loop and an INSERT per request inside PL/pgSQL,
 * and grew a jsonb of stream versions a write at a time: measured on a server, 42-56 µs of
 * server time an event in a batch of 64 one-event requests and 75 µs in a batch of 256,
 * where the events table takes a 100-row INSERT at about 20 (bench/event-store-append.ts).
 * Written as one set-based statement the batch costs 30-37 and 23-25 µs an event. PostgreSQL
 * estimates that statement's nested `jsonb_array_elements` at thousands of rows, past
 * `jit_above_cost`, and compiled it on every call (about 500 ms a batch); the function
 * turns JIT off for itself.
 *
 * The contract is 0039's: under the appenders' advisory lock each request, in order, either
 * conflicts (one row names its first conflicting stream and that stream's version) or has
 * all its events inserted at the next stream versions, and positions follow the order of
 * the requests and of their events. A request's checks are independent of the others'
 * outcomes when no stream is written by two requests of the batch, which is what lets one
 * statement decide them all. A batch where one stream is (two appends of this process to
 * one stream, the later expecting the version the earlier writes, or both `any`) goes
 * through 0039's request-by-request loop: its function, renamed `svc_append_in_order`,
 * takes the lock again, which a transaction already holding it gets at once.
 */
import { sql, type Kysely } from 'kysely';

const setBased = `create function svc_append(lock_key bigint, requests jsonb)
     returns table (request integer, stream text, version integer, event integer, position_at bigint, recorded timestamptz, actual integer)
     language plpgsql volatile
     set jit = off
   as $$
   begin
     perform pg_advisory_xact_lock(lock_key);
     if exists (
       select 1 from jsonb_array_elements(requests) r, jsonb_array_elements(r.value) w
       group by w.value->>'s' having count(*) > 1
     ) then
       return query select * from svc_append_in_order(lock_key, requests);
       return;
     end if;
     return query
       with writes as materialized (
         select (r.n - 1)::integer as req, w.n as wi, w.value->>'s' as s, w.value->'x' as x, w.value->'e' as e
         from jsonb_array_elements(requests) with ordinality as r(value, n)
         cross join lateral jsonb_array_elements(r.value) with ordinality as w(value, n)
       ),
       current_versions as materialized (
         select d.s, coalesce((select e.stream_version from events e where e.stream_id = d.s order by e.stream_version desc limit 1), 0) as v
         from writes d
       ),
       conflicts as materialized (
         select distinct on (writes.req) writes.req, writes.s, current_versions.v
         from writes join current_versions on current_versions.s = writes.s
         where jsonb_typeof(writes.x) = 'number' and (writes.x)::integer <> current_versions.v
         order by writes.req, writes.wi
       ),
       pending as materialized (
         select writes.req, writes.s, current_versions.v + ev.n::integer as ver, ev.n::integer as evn, ev.value,
                row_number() over (order by writes.req, writes.wi, ev.n) as ord
         from writes
         join current_versions on current_versions.s = writes.s
         cross join lateral jsonb_array_elements(writes.e) with ordinality as ev(value, n)
         where not exists (select 1 from conflicts where conflicts.req = writes.req)
       ),
       inserted as (
         insert into events (stream_id, stream_version, type, data, metadata)
         select pending.s, pending.ver, pending.value->>'t', pending.value->'d', pending.value->'m'
         from pending
         order by pending.ord
         returning events.stream_id, events.stream_version, events.global_position, events.recorded_at
       )
       select pending.req, pending.s, pending.ver, pending.evn, inserted.global_position, inserted.recorded_at, null::integer
       from inserted join pending on pending.s = inserted.stream_id and pending.ver = inserted.stream_version
       union all
       select conflicts.req, conflicts.s, null::integer, null::integer, null::bigint, null::timestamptz, conflicts.v
       from conflicts;
   end
   $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('alter function svc_append(bigint, jsonb) rename to svc_append_in_order').execute(db);
  await sql.raw(setBased).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop function svc_append(bigint, jsonb)').execute(db);
  await sql.raw('alter function svc_append_in_order(bigint, jsonb) rename to svc_append').execute(db);
}
