/**
 * What a runbook step may change on its run's case (`CaseEffects`, adapters/actions/action.ts),
 * staged in the step's unit of work instead of appended: the run driver appends them in
 * one `appendMany` with the step's end (docs/architecture.md "Run path", crash recovery).
 * The decisions are the Case aggregate's own (`caseDecider`), against the case stream as
 * the unit read it, so a step that lost the race to another command decides again on
 * the moved case and never applies a change twice.
 */
import type { Kysely } from 'kysely';
import { caseDecider, type Actor, type CaseCommand } from '../../domain/cases/index.ts';
import { mentionedEmails, noMentions } from '../../domain/cases/mentions.ts';
import { streams } from '../../domain/shared/streams.ts';
import { TICKET_LINKED, type TicketLinked } from '../../domain/tickets/links.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import type { CaseEffects } from '../actions/action.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
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
        if (fields.severity !== undefined && !deps.severities.includes(fields.severity)) {
          throw new Error(`severity must be one of ${deps.severities.join(', ')}`);
        }
        if (status !== undefined && !deps.statuses.includes(status)) throw new Error(`status must be one of ${deps.statuses.join(', ')}`);
        // Read before anything is staged; only a comment that mentions someone needs the case's scope columns.
        const mentions = comment === undefined || mentionedEmails(comment).length === 0 ? noMentions() : await resolveMentions(deps.db, comment, (await findCase(deps.db, caseId)) ?? unscoped, null, deps.permissions);
        const now = deps.now().toISOString();
        const changed: string[] = [];
        const mark = unit.mark();
        try {
          const updated = await unit.decide(
            streamId,
            caseDecider,
            (state): CaseCommand => ({
              type: 'update_case',
              // Added to the tags of the case as this try read it: a try after a lost race merges into the moved case.
              changes: { ...fields, ...(tagsAdd && { tags: [...new Set([...(state.exists ? state.tags : []), ...tagsAdd])] }) },
              now,
            }),
            metadata,
          );
          for (const e of updated) if (e.type === 'case.updated') changed.push(...Object.keys(e.data.changes));
          if (status !== undefined && (await unit.decide(streamId, caseDecider, (): CaseCommand => ({ type: 'change_status', status, note: null, now }), metadata)).length > 0) {
            changed.push('status');
          }
          if (comment !== undefined) {
            await unit.decide(streamId, caseDecider, (): CaseCommand => ({ type: 'add_comment', commentId: deps.ids(), body: comment, actor, mentions, now }), metadata);
            changed.push('comment');
          }
        } catch (error) {
          unit.restore(mark);
          throw error;
        }
        return { case_id: caseId, changed };
      },
      linkPage: async (page) => {
        const now = deps.now().toISOString();
        await unit.decide(streamId, caseDecider, (): CaseCommand => ({ type: 'link_page', ...page, now }), metadata);
      },
      linkTicket: async (link) => {
        // Each link opens its own stream (domain/tickets/links.ts), staged at version 0.
        const event: TicketLinked = {
          type: TICKET_LINKED,
          data: {
            link_id: link.linkId,
            case_id: caseId,
            provider: link.provider,
            connection: link.connection,
            remote_id: link.remoteId,
            remote_key: link.remoteKey,
            url: link.url,
            run_id: link.runId,
            step_id: link.stepId,
            at: deps.now().toISOString(),
          },
        };
        unit.create(streams.ticket(link.linkId), [event], { actor: { id: null, email: actor.email, kind: 'system' } });
      },
    };
  };
}
