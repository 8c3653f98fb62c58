/**
 * Advisory triage of one case (SPEC.md "Cases": `POST /cases/<id>/ai-triage`; "Generic
 * actions": `ai.triage`): read what the case holds, ask the provider through the AI call
 * path, and turn an accepted answer into the record stored on the case.
 *
 * Two callers, one assessment:
 * - the route (`createCaseTriage`) appends the verdict, the call's `ai.invocation` row and
 *   an `ai.triage` audit entry (naming the verdict and the invocation) in one append with
 *   the case's `case.ai_triage` event;
 * - the `ai.triage` action assesses in `execute` (the invocation row is appended alone:
 *   the call happened, whatever becomes of the step) and stages the verdict and the
 *   `ai.triage` entry in `record`, with the step's end (adapters/commands/run-case-effects.ts).
 * A refused or failed call records nothing on the case: the previous verdict stays.
 * Nothing here can change the case's status, severity or owner.
 */
import type { Kysely } from 'kysely';
import { aiFeatureClasses, type AiRefusal } from '../../domain/ai/gate.ts';
import { acceptTriage, TRIAGE_LIMITS, triageOutputSchema, triagePrompt, triageRecord, type TriageRecord } from '../../domain/ai/triage.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { Actor } from '../../domain/cases/commands.ts';
import { triageInput } from '../../projections/ai/triage.queries.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import type { CaseCommands } from '../commands/cases.ts';
import { triageAuditEntry, type AuditLog } from '../commands/audit.ts';
import type { StreamWrite } from '../event-store/port.ts';
import type { AiInvoker } from './invoke.ts';

/** What a triage came to: the verdict and the position to wait for, or the refusal (already audited). */
export type TriageResult = { ok: true; record: TriageRecord; invocationId: string; position: number } | { ok: false; refusal: AiRefusal; position: number };

/** Longest analyst note a triage request carries into the prompt, characters. */
export const TRIAGE_NOTE_MAX = 2000;

/** Appends the accepted verdict with the call's audit row; resolves the append's position. */
type Commit = (record: TriageRecord, invocation: StreamWrite, invocationId: string) => Promise<number>;

export type TriageAssessor = ReturnType<typeof createTriageAssessor>;

export function createTriageAssessor(deps: { db: Kysely<Database>; ai: AiInvoker }) {
  return {
    /**
     * Asks for a verdict on the case `row` for `actor`; `note` is the analyst's or the
     * step's own context, sent with the case. With `commit`, an accepted verdict is
     * appended by it together with the call's audit row; without, the row is appended
     * alone and the verdict only answered. Throws only when the event store cannot be written.
     */
    async assess(row: CaseRow, actor: AuditActor, note: string | null, commit?: Commit): Promise<TriageResult> {
      const input = await triageInput(deps.db, row, TRIAGE_LIMITS);
      const { system, prompt, sentIds } = triagePrompt(input);
      const sent = { ids: sentIds, runbooks: new Set(input.runbooks.map((r) => r.slug)) };
      const withNote = note === null ? prompt : `${prompt}\n<analyst_note>\n${note}\n</analyst_note>`;
      let record: TriageRecord | null = null;
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
        commit &&
          (async (ok, invocation) => {
            record = triageRecord(ok.output, sent, { provider: ok.provider, model: ok.model, output_digest: ok.output_digest });
            return commit(record, invocation, ok.audit.id);
          }),
      );
      if (!answer.ok) return { ok: false, refusal: answer.refusal, position: answer.position };
      const verdict =
        (record as TriageRecord | null) ??
        triageRecord(answer.output, sent, { provider: answer.provider, model: answer.model, output_digest: answer.output_digest });
      return { ok: true, record: verdict, invocationId: answer.audit.id, position: answer.position };
    },
  };
}

export type CaseTriage = ReturnType<typeof createCaseTriage>;

/** The route's triage: the verdict, the invocation row and the `ai.triage` entry in one append with the case event. */
export function createCaseTriage(deps: { assessor: TriageAssessor; cases: Pick<CaseCommands, 'recordAiTriage'>; audit: Pick<AuditLog, 'write'> }) {
  return {
    /**
     * Triages the case `row` for `actor` (the audit actor) acting as `caseActor` (who the
     * case event names). Throws only when the event store cannot be written.
     */
    run: (row: CaseRow, actor: AuditActor, caseActor: Actor | null, note: string | null): Promise<TriageResult> =>
      deps.assessor.assess(row, actor, note, async (record, invocation, invocationId) => {
        const entry = triageAuditEntry(deps.audit, row, actor, invocationId, record);
        return (await deps.cases.recordAiTriage(row.id, record, caseActor, [invocation, entry])).position ?? 0;
      }),
  };
}
