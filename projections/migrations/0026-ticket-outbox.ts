/**
 * Outbound ticket mirroring (SPEC.md "Ticket mirroring": local case comments and mapped
 * statuses mirror to linked tickets): one row per (link, case event) still to be sent.
 * Rows are written by projections/tickets/outbox.projection.ts; the worker's ticket loop
 * claims due rows, sends them and stamps `done_at` (runtime/worker/ticket-poll.ts).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table ticket_outbox (
     link_id uuid not null,
     event_position bigint not null,
     kind text not null,
     payload jsonb not null,
     attempts integer not null default 0,
     next_attempt_at timestamptz not null,
     last_error text,
     done_at timestamptz,
     primary key (link_id, event_position)
   )`,
  'create index ticket_outbox_due on ticket_outbox (next_attempt_at) where done_at is null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table ticket_outbox').execute(db);
}
