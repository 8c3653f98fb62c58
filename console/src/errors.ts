/**
 * An API answer that was not a success, in words an analyst can act on. The service's
 * error bodies (SPEC.md "Errors") are `{detail, code, params}`, where `detail` is text,
 * an AI refusal's `{code, message}`, or a validation failure's list of `{loc, msg}`.
 * Pure: no DOM, so tests/unit/console can run it.
 */
import { isRecord } from './format.ts';

/** One item of a validation failure: where (`loc`, a path into the request) and what. */
export type ValidationProblem = { loc: (string | number)[]; msg: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    /** The items of a validation failure (422 with a list `detail`), for a form to show each at its field. */
    readonly problems: readonly ValidationProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const statusWords: Record<number, string> = {
  401: 'You are not signed in, or your session ended. Reload the page.',
  403: 'You do not have permission to do that.',
  404: 'Not found, or not visible to you.',
  409: 'That conflicts with the current state. Reload and try again.',
  413: 'That is too large.',
  429: 'The service is busy. Try again in a moment.',
  502: 'The service could not be reached.',
  503: 'The service is not available right now.',
};

/** The message of an error answer with HTTP `status` and parsed JSON `body` (or null when it was not JSON). */
export function errorMessage(status: number, body: unknown): string {
  const detail = isRecord(body) ? body.detail : undefined;
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    return detail
      .map((issue: unknown) => {
        const loc = isRecord(issue) ? issue.loc : undefined;
        const msg = String((isRecord(issue) ? issue.msg : undefined) ?? 'invalid');
        const where = Array.isArray(loc) ? loc.filter((part) => part !== 'body').join('.') : '';
        return where ? `${where}: ${msg}` : msg;
      })
      .join('; ');
  }
  if (isRecord(detail) && typeof detail.message === 'string') return detail.message;
  return statusWords[status] ?? (status >= 500 ? 'The service failed to answer. Try again.' : `The request failed (HTTP ${status}).`);
}

/** The `code` of an error body: top-level, else inside a structured `detail`; null when there is none. */
export function errorCode(body: unknown): string | null {
  if (!isRecord(body)) return null;
  if (typeof body.code === 'string') return body.code;
  if (isRecord(body.detail) && typeof body.detail.code === 'string') return body.detail.code;
  return null;
}

/** The `{loc, msg}` items of a validation failure's body; `[]` for any other body. */
export function errorProblems(body: unknown): ValidationProblem[] {
  const detail = isRecord(body) ? body.detail : undefined;
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((issue: unknown) =>
    isRecord(issue) && Array.isArray(issue.loc) && typeof issue.msg === 'string'
      ? [{ loc: issue.loc.filter((part): part is string | number => typeof part === 'string' || typeof part === 'number'), msg: issue.msg }]
      : [],
  );
}

/**
 * The problems of a validation failure that lie in one field of the request body, each
 * `loc` made a path into that field's value: `['body', 'spec', 'http', 'path']` under
 * `spec` is `['http', 'path']`. An editor places them in the text it sent as that field.
 */
export function problemsIn(problems: readonly ValidationProblem[], field: string): ValidationProblem[] {
  return problems.filter((problem) => problem.loc[0] === 'body' && problem.loc[1] === field).map((problem) => ({ ...problem, loc: problem.loc.slice(2) }));
}
