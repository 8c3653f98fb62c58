/**
 * The audit log read model (SPEC.md "Audit entry"): every `audit.recorded` event becomes
 * the next row of the hash-chained `audit_log`, in global event order.
 */
import { chainRowOf } from '../../domain/audit/chain-rows.ts';
import type { AuditEntry } from '../../domain/audit/events.ts';
import { appendChainRow } from '../chains/chain-table.ts';
import type { Projection } from '../projector.ts';

export const auditProjection: Projection = {
  name: 'audit',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      const entry = chainRowOf(recorded);
      if (entry?.chain !== 'audit_log') continue;
      const e = recorded.data as AuditEntry;
      await appendChainRow(trx, 'audit_log', recorded.globalPosition, entry.row, {
        entry_id: e.id,
        at: e.at,
        action: e.action,
        actor_id: e.actor.id,
        target_type: e.target?.type ?? null,
        target_id: e.target?.id ?? null,
        team: e.team,
      });
    }
  },
};
