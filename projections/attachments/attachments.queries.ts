/**
 * Attachment queries (SPEC.md "Cases": `/cases/<case_id>/attachments`, its download).
 */
import type { Kysely, Selectable } from 'kysely';
import type { CaseAttachmentsTable, Database } from '../database.ts';

export type AttachmentRow = Selectable<CaseAttachmentsTable>;

/** The attachments of a case, newest first. */
export async function listAttachments(db: Kysely<Database>, caseId: string): Promise<AttachmentRow[]> {
  return db.selectFrom('case_attachments').selectAll().where('case_id', '=', caseId).orderBy('event_position', 'desc').execute();
}

/** Attachment `id` of case `caseId`, or undefined (unknown, or of another case). */
export async function findAttachment(db: Kysely<Database>, caseId: string, id: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom('case_attachments').selectAll().where('case_id', '=', caseId).where('id', '=', id).executeTakeFirst();
}
