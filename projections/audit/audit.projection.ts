/**
 * The audit log read model (SPEC.md "Audit entry"): every `audit.recorded` event becomes
 * the next row of the hash-chained `audit_log`, in global event order.
 */
import { chainRowOf } from '../../domain/audit/chain-rows.ts';
import type { AuditEntry } from '../../domain/audit/events.ts';
import { appendChainRows, type ChainEntry } from '../chains/chain-table.ts';
import type { Projection } from '../projector.ts';

export const auditProjection: Projection = {
  name: 'audit',
  apply: async (trx, batch) => {
    const entries: ChainEntry<'audit_log'>[] = [];
    for (const recorded of batch) {
      const entry = chainRowOf(recorded);
      if (entry?.chain !== 'audit_log') continue;
      const e = recorded.data as AuditEntry;
      entries.push({
        position: recorded.globalPosition,
        row: entry.row,
        extras: {
          entry_id: e.id,
          at: e.at,
          action: e.action,
          actor_id: e.actor.id,
          target_type: e.target?.type ?? null,
          target_id: e.target?.id ?? null,
          team: e.team,
        },
      });
    }
    await appendChainRows(trx, 'audit_log', entries);
  },
};
