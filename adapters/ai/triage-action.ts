/**
 * `ai.triage` (internal, risk read; SPEC.md "Generic actions"): an advisory verdict on the
 * run's bound case, through the same assessment as `POST /cases/<id>/ai-triage`
 * (adapters/ai/case-triage.ts), with `instructions` sent as the note.
 *
 * `execute` makes the AI call, whose `ai.invocation` (or `ai.refusal`) row is appended at
 * once: the call happened whatever becomes of the step, and a crash re-execution is
 * another call with its own row. `record` stages the verdict (`case.ai_triage`) and its
 * `ai.triage` audit entry with the step's end, so the verdict lands exactly once. It never
 * changes status, disposition, severity or owner. A refused or failed call fails the step
 * under its AI code; a timeout, a provider error or a call that never became an answer is
 * retryable (the step's `retries` decide), the gate's refusals and invalid answers are not.
 *
 * Output: `{verdict, summary (the rationale), suggested_runbook, evidence_refs,
 * unverified_evidence_refs}` and the rest of the record stored on the case.
 */
import type * as v from 'valibot';
import type { TriageRecord } from '../../domain/ai/triage.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import type { TriageAssessor } from './case-triage.ts';
import { systemActor } from '../commands/audit.ts';
import { ActionFailure, type ActionDefinition } from '../actions/action.ts';
import { aiStepFailure } from './step-failure.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';

type Input = { instructions?: string };

/** The step's output: SPEC.md's fields and the rest of the record, so `record` can stage it. */
export type AiTriageOutput = {
  verdict: string;
  summary: string;
  suggested_runbook: string | null;
  evidence_refs: string[];
  unverified_evidence_refs: string[];
  confidence: number;
  error_code: string | null;
  provider: string;
  model: string;
  output_digest: string;
  invocation_id: string;
};

const noBoundCase = () => new ActionFailure('no_bound_case', 'ai.triage needs a run bound to a case', false);

const outputOf = (record: TriageRecord, invocationId: string): AiTriageOutput => ({
  verdict: record.verdict ?? '',
  summary: record.rationale ?? '',
  suggested_runbook: record.suggested_runbook,
  evidence_refs: record.evidence_refs,
  unverified_evidence_refs: record.unverified_evidence_refs,
  confidence: record.confidence ?? 0,
  error_code: record.error_code,
  provider: record.provider ?? '',
  model: record.model ?? '',
  output_digest: record.output_digest ?? '',
  invocation_id: invocationId,
});

/** The complete record an output stands for (the inverse of `outputOf` on a complete record). */
const recordOf = (o: AiTriageOutput): TriageRecord => ({
  state: 'complete',
  verdict: o.verdict as TriageRecord['verdict'],
  confidence: o.confidence,
  rationale: o.summary,
  evidence_refs: o.evidence_refs,
  unverified_evidence_refs: o.unverified_evidence_refs,
  suggested_runbook: o.suggested_runbook,
  model: o.model,
  provider: o.provider,
  output_digest: o.output_digest,
  error_code: o.error_code,
});

/** The action over `assessor`; `findCase` reads the bound case's row. */
export function createAiTriageAction(deps: {
  assessor: TriageAssessor;
  findCase: (id: string) => Promise<CaseRow | undefined>;
}): ActionDefinition<Input, AiTriageOutput> {
  const schemas = builtinSchemas['ai.triage'];
  if (!schemas) throw new Error('no built-in schemas for ai.triage');
  return {
    name: 'ai.triage',
    connectionKind: 'internal',
    risk: 'read',
    input: schemas.input as v.GenericSchema<unknown, Input>,
    output: schemas.output,
    execute: async (input, context) => {
      if (context.caseId === null) throw noBoundCase();
      const row = await deps.findCase(context.caseId);
      if (!row) throw new ActionFailure('case_not_found', 'the run’s case is not in the read model yet', true);
      const result = await deps.assessor.assess(row, systemActor('runbook_run'), input.instructions ?? null);
      if (!result.ok) throw aiStepFailure(result.refusal);
      return outputOf(result.record, result.invocationId);
    },
    record: async (_input, executed, context) => {
      if (!context.cases) throw noBoundCase();
      await context.cases.recordAiTriage(recordOf(executed), executed.invocation_id);
      return executed;
    },
    preview: async (input, context) => ({ case_id: context.caseId, instructions: input.instructions ?? null, sends_to_ai: true }),
  };
}
