/**
 * Queued advisory triage (SPEC.md "Generic actions": `auto_ai_triage`): claims one due
 * `ai_triage` job (projections/ai/auto-triage.projection.ts) at a time, by the service clock
 * and with a lease (due-jobs.ts), and triages its case as the route does, the audit actor
 * `system` via `case_policy`. An accepted verdict lands with its audit rows in one append
 * (adapters/ai/case-triage.ts); a refused or failed call, already audited, is recorded as a
 * `failed` record with its code. Either record makes the projector delete the job. A case
 * that is gone or no longer pending drops its job. A worker that dies mid-call leaves the
 * lease to expire; the next claim finds the verdict if it landed, else asks again (another
 * call, audited as such).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { CaseTriage } from '../../adapters/ai/case-triage.ts';
import { systemActor } from '../../adapters/commands/audit.ts';
import type { CaseCommands } from '../../adapters/commands/cases.ts';
import { failedTriageRecord } from '../../domain/ai/triage.ts';
import { AUTO_TRIAGE_JOB } from '../../projections/ai/auto-triage.projection.ts';
import { startCatchUpLoop, type CatchUpLoop } from '../../projections/catch-up.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import { claimDueJob } from './due-jobs.ts';

export type AutoTriageOptions = {
  db: Kysely<Database>;
  triage: CaseTriage;
  cases: Pick<CaseCommands, 'recordAiTriage'>;
  now: () => Date;
  leaseMs: number;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
};

/** Starts the loop; `stop` waits for a triage in flight. */
export function startAutoTriage(options: AutoTriageOptions): CatchUpLoop {
  const owner = `auto-triage-${randomUUID()}`;
  const drop = (caseId: string) => sql`delete from jobs where kind = ${AUTO_TRIAGE_JOB} and key = ${caseId} and lease_owner = ${owner}`.execute(options.db);
  return startCatchUpLoop({
    pollIntervalMs: options.pollIntervalMs,
    onError: options.onError,
    step: async () => {
      const caseId = await claimDueJob(options.db, { kind: AUTO_TRIAGE_JOB, owner, leaseMs: options.leaseMs, now: options.now() });
      if (caseId === null) return false;
      const row = await findCase(options.db, caseId);
      if (row?.ai_triage?.state !== 'pending') {
        await drop(caseId);
        return true;
      }
      const result = await options.triage.run(row, systemActor('case_policy'), null, null);
      if (!result.ok) await options.cases.recordAiTriage(caseId, failedTriageRecord(result.refusal.code), null, []);
      return true;
    },
  });
}
