/**
 * `case.update` (internal, risk write): changes the run's bound case: title,
 * description, severity, added tags, status, and an optional comment. A run with
 * no bound case fails the step (non-retryable `no_bound_case`).
 */
import * as v from 'valibot';
import { ActionFailure, type ActionDefinition } from './action.ts';

const input = v.strictObject({
  title: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
  description: v.optional(v.pipe(v.string(), v.maxLength(20_000))),
  severity: v.optional(v.string()),
  status: v.optional(v.string()),
  tags_add: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100)))),
  comment: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(20_000))),
});

export type CaseUpdateInput = v.InferOutput<typeof input>;

export const caseUpdate: ActionDefinition<CaseUpdateInput, Record<string, unknown>> = {
  name: 'case.update',
  connectionKind: 'internal',
  risk: 'write',
  input,
  output: v.object({ case_id: v.string(), changed: v.array(v.string()) }),
  execute: async (changes, context) => {
    if (!context.cases || context.caseId === null) throw new ActionFailure('no_bound_case', 'case.update needs a run bound to a case', false);
    return context.cases.update(changes);
  },
  preview: async (changes, context) => ({ case_id: context.caseId, changes }),
};
