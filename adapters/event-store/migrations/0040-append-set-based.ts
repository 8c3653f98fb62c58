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
 * through 0039's request-by-request loop, kept as `svc_append_in_order` and called with the
 * lock held.
 */
import { sql, type Kysely } from 'kysely';
import { up as createAppendInOneStatement } from './0039-append-in-one-statement.ts';

const inOrder = `create function svc_append_in_order(requests jsonb)
     returns table (request integer, stream text, version integer, event integer, position_at bigint, recorded timestamptz, actual integer)
     language plpgsql volatile
   as $$
   declare
     versions jsonb;
     req jsonb;
     w jsonb;
     from_version integer;
   begin
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

const setBased = `create or replace function svc_append(lock_key bigint, requests jsonb)
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
       return query select * from svc_append_in_order(requests);
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
  await sql.raw(inOrder).execute(db);
  await sql.raw(setBased).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop function svc_append(bigint, jsonb)').execute(db);
  await sql.raw('drop function svc_append_in_order(jsonb)').execute(db);
  await createAppendInOneStatement(db);
}
