/**
 * Attachment and evidence-pin commands on the Case aggregate (SPEC.md "Cases":
 * `POST /cases/<case_id>/attachments`, `POST /cases/<case_id>/evidence`). Routes check
 * the case (caseAccess) and the request shape; these commit the file or check the
 * pinned reference, then decide and append. They return the last position written so
 * the caller can wait for projections.
 */
import type { Kysely } from 'kysely';
import { caseDecider, type Actor, type CaseCommand } from '../../domain/cases/index.ts';
import type { EvidenceKind } from '../../domain/cases/evidence.ts';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import { evidenceRefExists } from '../../projections/evidence/evidence.queries.ts';
import type { StagedFile } from '../attachments/port.ts';
import type { EventStore } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import { actorMetadata } from './cases.ts';

export type CaseFileCommandDeps = { store: EventStore; db: Kysely<Database>; ids: () => string; now: () => Date };

/** What a `ref_id` must name, per kind, in the 422 message. */
const refTargets: Record<Exclude<EvidenceKind, 'link'>, string> = {
  timeline: 'a timeline item id of this case',
  observable: 'an observable of this case that was not removed',
  attachment: 'an attachment of this case',
  action_log: 'the index of an action-log row of a run of this case',
};

export function createCaseFileCommands(deps: CaseFileCommandDeps) {
  const { store, db } = deps;
  return {
    /**
     * Commits `staged` to the file store and records it as an attachment of the case.
     * `filename` and `contentType` are already sanitized display metadata.
     */
    attach: async (caseId: string, file: { staged: StagedFile; filename: string; contentType: string }, actor: Actor) => {
      const attachmentId = deps.ids();
      await file.staged.commit();
      const now = deps.now().toISOString();
      const { sha256, size } = file.staged;
      const r = await decideAndAppend(
        store,
        streams.case(caseId),
        caseDecider,
        (): CaseCommand => ({ type: 'add_attachment', attachmentId, filename: file.filename, contentType: file.contentType, size, sha256, actor, now }),
        actorMetadata(actor, 'user'),
      );
      return { attachmentId, position: r.position };
    },
    /**
     * Pins evidence; a `ref_id` that names nothing of this case is 422 at
     * `["body", "ref_id"]` and appends nothing.
     */
    pin: async (caseId: string, pin: { kind: EvidenceKind; refId: string | null; url: string | null; note: string }, actor: Actor) => {
      if (pin.kind !== 'link' && (pin.refId === null || !(await evidenceRefExists(db, caseId, pin.kind, pin.refId)))) {
        throw new ValidationFailed([{ loc: ['body', 'ref_id'], msg: `must be ${refTargets[pin.kind]}`, type: 'reference_not_found' }]);
      }
      const pinId = deps.ids();
      const now = deps.now().toISOString();
      const r = await decideAndAppend(
        store,
        streams.case(caseId),
        caseDecider,
        (): CaseCommand => ({ type: 'pin_evidence', pinId, kind: pin.kind, refId: pin.refId, url: pin.url, note: pin.note, actor, now }),
        actorMetadata(actor, 'user'),
      );
      return { pinId, position: r.position };
    },
  };
}

export type CaseFileCommands = ReturnType<typeof createCaseFileCommands>;
