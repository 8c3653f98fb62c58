/**
 * valibot issues as the 422 `detail` items of CONTRACTS.md section 3 (`{loc, msg, type}`),
 * for checks that run outside a route's own validator (connection config, fetched alerts).
 */
import type * as v from 'valibot';
import type { ValidationIssue } from '../../domain/shared/errors.ts';

/** Each issue at `prefix` + its path (array indexes stay numbers). */
export function issuesAt(prefix: (string | number)[], issues: readonly v.BaseIssue<unknown>[]): ValidationIssue[] {
  return issues.map((issue) => ({
    loc: [...prefix, ...(issue.path ?? []).map((p) => (typeof p.key === 'number' ? p.key : String(p.key)))],
    msg: issue.message,
    type: 'value_error',
  }));
}
