/**
 * Explaining a run with AI (SPEC.md "AI authoring (proposals only)": `POST
 * /ai/runs/<run_id>/explanation`): the run's action log, and nothing else of the store,
 * goes through the AI call path (classes `alerts` and `cases`); the answer is checked and
 * each step flagged `in_log`. Read-only: nothing but the call's audit row is written.
 */
import { aiFeatureClasses, type AiRefusal } from '../../domain/ai/gate.ts';
import {
  explanationBoundsProblem,
  explanationOf,
  explanationOutputSchema,
  explanationPrompt,
  type ExplainedLogRow,
  type ExplainedRun,
  type Explanation,
} from '../../domain/ai/run-explanation.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { AiAuditRef, AiInvoker } from './invoke.ts';

/** What an explanation came to; `position` is the audit row's. */
export type ExplanationResult =
  | { ok: true; explanation: Explanation; audit: AiAuditRef; position: number }
  | { ok: false; refusal: AiRefusal; position: number };

export type RunExplainer = ReturnType<typeof createRunExplainer>;

export function createRunExplainer(deps: { ai: AiInvoker }) {
  return {
    /** Explains `run` from `log` (its action-log rows in chain order) for `actor`; `team` is the run's case's. Throws only when the audit row cannot be appended. */
    async explain(run: ExplainedRun, log: readonly ExplainedLogRow[], actor: AuditActor, team: string | null): Promise<ExplanationResult> {
      const { system, prompt } = explanationPrompt(run, log);
      const answer = await deps.ai.invoke({
        feature: 'run_explanation',
        classes: aiFeatureClasses.run_explanation,
        actor,
        target: { type: 'run', id: run.id },
        team,
        system,
        prompt,
        output: explanationOutputSchema,
        schemaName: 'run_explanation',
        accept: (output) => {
          const bounds = explanationBoundsProblem(output);
          return bounds === null ? null : { code: 'ai_structured_output_invalid', message: `the AI answer is out of bounds: ${bounds}` };
        },
      });
      if (!answer.ok) return { ok: false, refusal: answer.refusal, position: answer.position };
      return { ok: true, explanation: explanationOf(answer.output, log), audit: answer.audit, position: answer.position };
    },
  };
}
