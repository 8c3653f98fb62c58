/**
 * External ticket links (SPEC.md "Ticket link"; `GET /cases/<id>/tickets`,
 * `GET /tickets/<link_id>`), projected from `ticket.linked`. `remote_status`,
 * `last_polled_at` and `last_poll_error` are filled by ticket mirroring.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table case_tickets (
     link_id uuid primary key,
     case_id uuid not null,
     provider text not null,
     connection text not null,
     remote_id text not null,
     remote_key text not null,
     url text,
     remote_status text,
     last_polled_at timestamptz,
     last_poll_error text,
     created_at timestamptz not null,
     event_position bigint not null
   )`,
  'create index case_tickets_case on case_tickets (case_id, created_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_tickets').execute(db);
}
