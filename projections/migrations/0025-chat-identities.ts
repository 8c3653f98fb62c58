/**
 * The chat_a product (SPEC.md "Webhook intake", `POST /webhooks/chat-interactions`; "Peer
 * endpoints", account section): the bot token a chat_a connection posts with (its
 * `secret` is the signing secret), the links between a chat identity and a user, and the
 * pending one-time link codes (stored as digests only).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  'alter table connections add column bot_token_ciphertext text',
  `create table chat_identity_links (
     provider text not null,
     workspace_id text not null,
     chat_user_id text not null,
     user_id uuid not null references users (id) on delete cascade,
     chat_user_name text,
     linked_at timestamptz not null,
     primary key (provider, workspace_id, chat_user_id)
   )`,
  'create unique index chat_identity_links_user on chat_identity_links (provider, user_id)',
  `create table chat_link_codes (
     user_id uuid primary key references users (id) on delete cascade,
     code_digest text not null unique,
     expires_at timestamptz not null,
     created_at timestamptz not null
   )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['drop table chat_link_codes', 'drop table chat_identity_links', 'alter table connections drop column bot_token_ciphertext'])
    await sql.raw(statement).execute(db);
}
