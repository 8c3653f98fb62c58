/**
 * Page acknowledgements from the pagers' webhooks (SPEC.md "Case acknowledgement": a
 * pager_a or pager_b acknowledgement webhook stamps the acknowledgement once when the
 * linked page exists, the case is open and not yet acknowledged; an unknown key, a
 * repeat or a closed case changes nothing and is explained in `page_ack`).
 */
import { webhookSourceActor } from './audit.ts';
import { sql, type Kysely } from 'kysely';
import * as v from 'valibot';
import { pagers, type Pager } from '../../domain/cases/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import { findPage } from '../../projections/cases/pages.queries.ts';
import type { Database } from '../../projections/database.ts';
import type { CaseCommands } from './cases.ts';

/** The `page_ack` member of a pager webhook's 202. */
export const pageAckSchema = v.strictObject({
  pager: v.picklist(pagers),
  key: v.nullable(v.string()),
  acknowledged: v.boolean(),
  /** Why: `acknowledged`, or why nothing changed. */
  reason: v.picklist(['acknowledged', 'unknown_key', 'already_acknowledged', 'case_closed', 'not_an_acknowledgement']),
  case_id: v.nullable(v.string()),
  case_key: v.nullable(v.string()),
});

export type PageAck = v.InferOutput<typeof pageAckSchema>;

/** An acknowledgement as a pager reported it: the page key, who acknowledged (name or email), and the source it came through. */
export type PageAckRequest = { pager: Pager; key: string; agent: string | null; agentEmail: string | null; sourceSlug: string };

export type PageAcks = {
  acknowledge: (request: PageAckRequest) => Promise<{ pageAck: PageAck; position: number | null }>;
  /** The answer to an event that is not an acknowledgement (it changes nothing). */
  ignored: (pager: Pager, key: string | null) => PageAck;
};

/** The page acknowledgements over the read models and `cases.acknowledge`; `closedStatuses` are SVC_CASE_CLOSED_STATUSES. Never throws for an unknown or closed case: that is a `page_ack` reason. */
export function createPageAcks(deps: { db: Kysely<Database>; cases: Pick<CaseCommands, 'acknowledge'>; closedStatuses: ReadonlySet<string> }): PageAcks {
  /** The active user whose email matches (case-insensitive), for pager_b's acknowledging user. */
  const activeUserByEmail = async (email: string) =>
    deps.db.selectFrom('users').select(['id', 'email']).where(sql<boolean>`lower(email) = lower(${email})`).where('active', '=', true).executeTakeFirst();

  return {
    ignored: (pager, key) => ({ pager, key, acknowledged: false, reason: 'not_an_acknowledgement', case_id: null, case_key: null }),
    acknowledge: async (r) => {
      const unchanged = (reason: PageAck['reason'], c: { id: string; key: string } | null) => ({
        pageAck: { pager: r.pager, key: r.key, acknowledged: false, reason, case_id: c?.id ?? null, case_key: c?.key ?? null },
        position: null,
      });
      const page = await findPage(deps.db, r.pager, r.key);
      const theCase = page ? await findCase(deps.db, page.case_id) : undefined;
      if (!theCase) return unchanged('unknown_key', null);
      if (deps.closedStatuses.has(theCase.status)) return unchanged('case_closed', theCase);
      if (theCase.acknowledged_at !== null) return unchanged('already_acknowledged', theCase);
      const user = r.pager === 'pager_b' && r.agentEmail ? await activeUserByEmail(r.agentEmail) : undefined;
      const actor = { userId: user?.id ?? null, email: user?.email ?? null };
      const by = webhookSourceActor(r.sourceSlug, { id: actor.userId, email: actor.email ?? r.agentEmail });
      try {
        const done = await deps.cases.acknowledge(theCase.id, actor, by, { pager: r.pager, agent: r.agent });
        if (done.position === null) return unchanged('already_acknowledged', theCase);
        return {
          pageAck: { pager: r.pager, key: r.key, acknowledged: true, reason: 'acknowledged', case_id: theCase.id, case_key: theCase.key },
          position: done.position,
        };
      } catch (error) {
        if (error instanceof DomainError && error.code === 'case_closed_unacknowledged') return unchanged('case_closed', theCase);
        throw error;
      }
    },
  };
}
