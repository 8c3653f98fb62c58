/**
 * Case attachments and evidence pins (SPEC.md "Case sub-resources": Attachment,
 * Evidence pin). Read models of `case.attachment_added` and `case.evidence_pinned`;
 * rows are keyed by their id, so re-projection changes nothing. `event_position`
 * orders pins newest first without ties.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table case_attachments (
      id uuid primary key,
      case_id uuid not null,
      filename text not null,
      content_type text not null,
      size bigint not null,
      sha256 text not null,
      uploaded_by text,
      uploaded_at timestamptz not null,
      event_position bigint not null
    )`,
  `create index case_attachments_case on case_attachments (case_id, event_position)`,
  `create table case_evidence (
      id uuid primary key,
      case_id uuid not null,
      kind text not null,
      ref_id text,
      url text,
      note text not null,
      pinned_by text,
      pinned_at timestamptz not null,
      event_position bigint not null
    )`,
  `create index case_evidence_case on case_evidence (case_id, event_position)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_evidence').execute(db);
  await sql.raw('drop table case_attachments').execute(db);
}
