/**
 * Mentions and in-app notifications (SPEC.md "Notification (in-app)", case comments):
 * users keep the grants of their last accepted token, so a mention can tell whether
 * the mentioned user may see the case; notifications are a read model per user.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table users add column grants jsonb not null default '[]'::jsonb`,
  `create table notifications (
      id uuid primary key,
      user_id uuid not null,
      kind text not null,
      severity text not null,
      title text not null,
      context jsonb not null,
      href text,
      at timestamptz not null,
      read_at timestamptz,
      event_position bigint not null,
      unique (event_position, user_id)
    )`,
  `create index notifications_user on notifications (user_id, at desc)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table notifications').execute(db);
  await sql.raw('alter table users drop column grants').execute(db);
}
