/**
 * Advisory triage of one case (SPEC.md "Cases": `POST /cases/<id>/ai-triage`; "Generic
 * actions": `ai.triage`): read what the case holds, ask the provider through the AI call
 * path, and record an accepted verdict on the case.
 *
 * The verdict, the call's `ai.invocation` row and an `ai.triage` audit entry (naming the
 * verdict and the invocation) land in one append with the case's `case.ai_triage` event.
 * A refused or failed call records nothing on the case: the previous verdict stays.
 * Nothing here can change the case's status, severity or owner; the case command it uses
 * records only the triage.
 */
import { aiFeatureClasses, type AiRefusal } from '../../domain/ai/gate.ts';
import { acceptTriage, TRIAGE_LIMITS, triageOutputSchema, triagePrompt, triageRecord, type TriageRecord } from '../../domain/ai/triage.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { Actor } from '../../domain/cases/commands.ts';
import type { Kysely } from 'kysely';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import { triageInput } from '../../projections/ai/triage.queries.ts';
import type { AuditLog } from '../commands/audit.ts';
import type { CaseCommands } from '../commands/cases.ts';
import type { AiInvoker } from './invoke.ts';

/** What a triage came to: the recorded verdict and the position to wait for, or the refusal (already audited). */
export type TriageResult = { ok: true; record: TriageRecord; position: number } | { ok: false; refusal: AiRefusal; position: number };

/** Longest analyst note a triage request carries into the prompt, characters. */
export const TRIAGE_NOTE_MAX = 2000;

export type CaseTriage = ReturnType<typeof createCaseTriage>;

export function createCaseTriage(deps: { db: Kysely<Database>; ai: AiInvoker; cases: Pick<CaseCommands, 'recordAiTriage'>; audit: Pick<AuditLog, 'write'> }) {
  return {
    /**
     * Triages the case `row` for `actor` (the audit actor) acting as `caseActor` (who the
     * case event names); `note` is the analyst's own context, sent with the case. Throws
     * only when the event store cannot be written.
     */
    async run(row: CaseRow, actor: AuditActor, caseActor: Actor | null, note: string | null): Promise<TriageResult> {
      const input = await triageInput(deps.db, row, TRIAGE_LIMITS);
      const { system, prompt, sentIds } = triagePrompt(input);
      const sentRunbooks = new Set(input.runbooks.map((r) => r.slug));
      const withNote = note === null ? prompt : `${prompt}\n<analyst_note>\n${note}\n</analyst_note>`;
      let record = null as TriageRecord | null;
      const answer = await deps.ai.invoke(
        {
          feature: 'triage',
          classes: aiFeatureClasses.triage,
          actor,
          target: { type: 'case', id: row.id },
          team: row.team,
          system,
          prompt: withNote,
          output: triageOutputSchema,
          schemaName: 'case_triage',
          accept: acceptTriage,
        },
        async (ok, invocation) => {
          record = triageRecord(
            ok.output,
            { ids: sentIds, runbooks: sentRunbooks },
            { provider: ok.provider, model: ok.model, output_digest: ok.output_digest },
          );
          const entry = deps.audit.write({
            action: 'ai.triage',
            actor,
            target: { type: 'case', id: row.id },
            team: row.team,
            detail: {
              case_key: row.key,
              invocation_id: ok.audit.id,
              verdict: record.verdict,
              confidence: record.confidence,
              suggested_runbook: record.suggested_runbook,
              error_code: record.error_code,
            },
          });
          const r = await deps.cases.recordAiTriage(row.id, record, caseActor, [invocation, entry]);
          return r.position ?? 0;
        },
      );
      if (!answer.ok) return { ok: false, refusal: answer.refusal, position: answer.position };
      if (record === null) throw new Error('an accepted triage answer was not recorded');
      return { ok: true, record, position: answer.position };
    },
  };
}
