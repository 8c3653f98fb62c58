/**
 * What a runbook step may change on its run's case (`CaseEffects`, adapters/actions/action.ts),
 * staged in the step's unit of work instead of appended: the run driver appends them in
 * one `appendMany` with the step's end (docs/architecture.md "Run path", crash recovery).
 * The decisions are the Case aggregate's own (`caseDecider`), against the case stream as
 * the unit read it, so a step that lost the race to another command decides again on
 * the moved case and never applies a change twice.
 */
import type { Kysely } from 'kysely';
import type { FieldRules } from '../../domain/custom-fields/fields.ts';
import { caseDecider, type Actor, type CaseCommand, type CaseEvent } from '../../domain/cases/index.ts';
import { mentionedEmails, noMentions } from '../../domain/cases/mentions.ts';
import { streams } from '../../domain/shared/streams.ts';
import { ticketLinkDecider, type TicketLinkCommand } from '../../domain/tickets/index.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import type { CaseEffects } from '../actions/action.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import { systemActor, triageAuditEntry, type AuditLog } from './audit.ts';
import { actorMetadata } from './cases.ts';
import { resolveMentions } from './mentions.ts';
import type { UnitOfWork } from './unit-of-work.ts';

/** The scope columns of a case the read model does not show yet: taken as a case of no team. */
const unscoped = { team: null, private: false, owner_id: null, created_by_id: null };

export type RunCaseEffectDeps = {
  db: Kysely<Database>;
  /** Configured severities and statuses (CONTRACTS.md section 3). */
  severities: readonly string[];
  statuses: readonly string[];
  /** The role matrix: who a comment's mention may notify. */
  permissions: PermissionMatrix;
  ids: () => string;
  now: () => Date;
  /** Builds the audit entries a step stages with its end (`ai.triage`). */
  audit: Pick<AuditLog, 'write'>;
  /** The custom field rules a status change is checked against (adapters/custom-fields/store.ts `rules`). */
  fieldRules: () => Promise<FieldRules>;
};

/**
 * Builds the case effects of one step try: bound to `unit`, to case `caseId`, and acting
 * as `runbook:<runbookId>`.
 * @example const cases = createRunCaseEffects(deps)(createUnitOfWork(store), caseId, 'triage');
 */
export function createRunCaseEffects(deps: RunCaseEffectDeps) {
  return (unit: UnitOfWork, caseId: string, runbookId: string): CaseEffects => {
    const streamId = streams.case(caseId);
    const actor: Actor = { userId: null, email: `runbook:${runbookId}` };
    // The runbook acts, not a person: its events say so (issue 20).
    const metadata = actorMetadata(actor, 'system');
    return {
      update: async (changes) => {
        const { comment, status, tags_add: tagsAdd, ...fields } = changes;
        // Read before anything is staged; only a comment that mentions someone needs the case's scope columns.
        const mentions =
          comment === undefined || mentionedEmails(comment).length === 0
            ? noMentions()
            : await resolveMentions(deps.db, comment, (await findCase(deps.db, caseId)) ?? unscoped, null, deps.permissions);
        const command: CaseCommand = {
          type: 'runbook_update',
          changes: fields,
          tagsAdd: tagsAdd ?? [],
          status: status ?? null,
          ...(status !== undefined && { fields: await deps.fieldRules() }),
          comment: comment === undefined ? null : { commentId: deps.ids(), body: comment, mentions },
          actor,
          vocabulary: { severities: deps.severities, statuses: deps.statuses },
          now: deps.now().toISOString(),
        };
        // One decision against the case stream as this try read it: refused, it stages nothing.
        const events = await unit.decide(streamId, caseDecider, () => command, metadata);
        return { case_id: caseId, changed: events.flatMap(changedFields) };
      },
      linkPage: async (page) => {
        const now = deps.now().toISOString();
        await unit.decide(streamId, caseDecider, (): CaseCommand => ({ type: 'link_page', ...page, now }), metadata);
      },
      recordAiTriage: async (record, invocationId) => {
        const row = (await findCase(deps.db, caseId)) ?? { id: caseId, key: '', team: null };
        const now = deps.now().toISOString();
        await unit.decide(streamId, caseDecider, (): CaseCommand => ({ type: 'record_ai_triage', record, requestedBy: actor.email, now }), metadata);
        const entry = triageAuditEntry(deps.audit, row, systemActor('runbook_run'), invocationId, record);
        unit.create(entry.streamId, entry.events, entry.events[0]?.metadata ?? metadata);
      },
      linkTicket: async (link) => {
        // Each link opens its own stream (domain/tickets/), new with its id: decided on the initial state and staged at version 0.
        const command: TicketLinkCommand = { type: 'link_ticket', ...link, caseId, now: deps.now().toISOString() };
        const linked = ticketLinkDecider.decide(command, ticketLinkDecider.initialState());
        unit.create(streams.ticket(link.linkId), linked, { actor: { id: null, email: actor.email, kind: 'system' } });
      },
    };
  };
}

/** The fields an event of a runbook update changed, as `case.update` reports them. */
function changedFields(event: CaseEvent): string[] {
  if (event.type === 'case.updated') return Object.keys(event.data.changes);
  if (event.type === 'case.status_changed') return ['status'];
  if (event.type === 'case.comment_added') return ['comment'];
  return [];
}
