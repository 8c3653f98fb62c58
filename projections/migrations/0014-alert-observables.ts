/**
 * Alert observables become case observables (SPEC.md "Case sub-resources" Observable;
 * CONTRACTS.md section 5 `observables`). `alert_observables` holds what intake
 * normalized for each alert; the view `case_observables_present` is what a case holds
 * now: its present hand-added observables, plus one row per (type, normalized value)
 * of the alerts currently linked to it that no hand-added one shadows. Deriving on read
 * keeps intake cost flat and follows links, unlinks and moves with no extra events.
 * A derived row's id is stable for (case, type, normalized value): md5 read as a UUID.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table alert_observables (
      alert_id uuid not null,
      type text not null,
      value text not null,
      normalized text not null,
      primary key (alert_id, type, normalized)
    )`,
  `create index alert_observables_value on alert_observables (type, normalized)`,
  `create index case_observables_case_value on case_observables (case_id, type, normalized) where removed_at is null`,
  `create view case_observables_present as
      select o.id, o.case_id, o.type, o.value, o.normalized, o.added_by, o.created_at, 'manual'::text as source
        from case_observables o
        where o.removed_at is null
      union all
      select md5(a.case_id::text || '|' || ao.type || '|' || ao.normalized)::uuid as id,
             a.case_id, ao.type, min(ao.value) as value, ao.normalized, null::text as added_by,
             min(a.received_at) as created_at, 'alert'::text as source
        from alert_observables ao
        join alerts a on a.id = ao.alert_id
        where a.case_id is not null
          and not exists (
            select 1 from case_observables m
            where m.case_id = a.case_id and m.type = ao.type and m.normalized = ao.normalized and m.removed_at is null)
        group by a.case_id, ao.type, ao.normalized`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['drop view case_observables_present', 'drop index case_observables_case_value', 'drop table alert_observables']) {
    await sql.raw(statement).execute(db);
  }
}
