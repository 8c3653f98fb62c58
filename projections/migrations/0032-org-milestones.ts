/**
 * The suite shell's peer endpoints (SPEC.md "Peer endpoints": nav, home, search):
 *
 * - `org_milestones`: one row per milestone the install reached, stamped once from the
 *   event that first reached it (projections/peer/milestones.projection.ts) and never
 *   rewritten, for the setup steps of `GET /peer/v1/home`. An install that already has
 *   cases or approved runs gets its stamps from the read models here, since the
 *   projection only sees events after its checkpoint.
 * - `cases_title_prefix`: `lower(title)` in byte order, for the title-prefix tier of
 *   `GET /peer/v1/search`.
 * - `cases_title_trigram`: a pg_trgm GIN index on `lower(title)` for its "contains" tier
 *   (about 13x faster for a rare term at 100k cases on PGlite: bench/peer-search.ts),
 *   created only where the extension can be installed: PGlite loads it
 *   (adapters/db/connect.ts), a server needs the contrib package and the right to create
 *   a trusted extension. Without it the tier scans the cases, which is correct but slower.
 * - `runs_started`: runs by start time, for the home strip's last 24 hours.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table org_milestones (
     milestone text primary key,
     reached_at timestamptz not null,
     ref_id text not null,
     event_position bigint not null
   )`,
  `insert into org_milestones (milestone, reached_at, ref_id, event_position)
   select 'first_case_opened', created_at, id::text, 0 from cases order by created_at, number limit 1`,
  `insert into org_milestones (milestone, reached_at, ref_id, event_position)
   select 'first_approved_response', runs.finished_at, runs.id::text, 0
   from runs
   where runs.status = 'succeeded' and not runs.dry_run and runs.finished_at is not null
     and exists (select 1 from run_gates where run_gates.run_id = runs.id and run_gates.status = 'approved')
   order by runs.finished_at, runs.id limit 1`,
  'create index cases_title_prefix on cases (lower(title) text_pattern_ops)',
  'create index runs_started on runs (started_at)',
  // A plpgsql block so a server that refuses the extension leaves the migration whole.
  `do $$
   declare
     trgm_schema name;
   begin
     if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
       begin
         create extension if not exists pg_trgm;
       exception when others then
         raise notice 'pg_trgm not installed (%): peer search scans case titles', sqlerrm;
       end;
     end if;
     select n.nspname into trgm_schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
     if trgm_schema is not null then
       execute format('create index cases_title_trigram on cases using gin (lower(title) %I.gin_trgm_ops)', trgm_schema);
     end if;
   end
   $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'drop index if exists cases_title_trigram',
    'drop index runs_started',
    'drop index cases_title_prefix',
    'drop table org_milestones',
  ]) {
    await sql.raw(statement).execute(db);
  }
}
