/**
 * `case.update` (internal, risk write): changes the run's bound case: title,
 * description, severity, added tags, status, and an optional comment. A run with
 * no bound case fails the step (non-retryable `no_bound_case`), and so does a change the
 * Case aggregate refuses, under its code (`case_severity_invalid: severity must be one of
 * ...`).
 *
 * Its whole effect is case events, so it happens in `record`: the worker appends them
 * with the step's end, and a step replayed after a crash finds either both (and never
 * runs again) or neither (and writes them once). Output `{case_id, changed}`.
 */
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import { ActionFailure, type ActionDefinition } from './action.ts';

const input = v.strictObject({
  title: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
  description: v.optional(v.pipe(v.string(), v.maxLength(20_000))),
  severity: v.optional(v.string()),
  status: v.optional(v.string()),
  tags_add: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100)))),
  comment: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(20_000))),
});

const noBoundCase = () => new ActionFailure('no_bound_case', 'case.update needs a run bound to a case', false);

export type CaseUpdateInput = v.InferOutput<typeof input>;

export const caseUpdate: ActionDefinition<CaseUpdateInput, Record<string, unknown>> = {
  name: 'case.update',
  connectionKind: 'internal',
  risk: 'write',
  input,
  output: v.object({ case_id: v.string(), changed: v.array(v.string()) }),
  // Nothing happens outside our store: `execute` only refuses a run without a case.
  execute: async (_changes, context) => {
    if (context.caseId === null) throw noBoundCase();
    return { case_id: context.caseId, changed: [] };
  },
  record: async (changes, _executed, context) => {
    if (context.caseId === null || !context.cases) throw noBoundCase();
    try {
      return await context.cases.update(changes);
    } catch (error) {
      // A change the case refuses fails the step for good, named by the Case rule's code in its error.
      if (error instanceof DomainError) throw new ActionFailure(error.code, error.message, false, error);
      throw error;
    }
  },
  preview: async (changes, context) => ({ case_id: context.caseId, changes }),
};
