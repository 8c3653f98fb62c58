/**
 * An API answer that was not a success, in words an analyst can act on. The service's
 * error bodies (SPEC.md "Errors") are `{detail, code, params}`, where `detail` is text,
 * an AI refusal's `{code, message}`, or a validation failure's list of `{loc, msg}`.
 * Pure: no DOM, so tests/unit/console can run it.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
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
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    return detail
      .map((issue: { loc?: unknown[]; msg?: string }) => {
        const where = Array.isArray(issue.loc) ? issue.loc.filter((part) => part !== 'body').join('.') : '';
        return where ? `${where}: ${issue.msg ?? 'invalid'}` : (issue.msg ?? 'invalid');
      })
      .join('; ');
  }
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') return (detail as { message: string }).message;
  return statusWords[status] ?? (status >= 500 ? 'The service failed to answer. Try again.' : `The request failed (HTTP ${status}).`);
}

/** The `code` of an error body: top-level, else inside a structured `detail`; null when there is none. */
export function errorCode(body: unknown): string | null {
  const record = body as { code?: unknown; detail?: { code?: unknown } } | null;
  if (typeof record?.code === 'string') return record.code;
  if (typeof record?.detail === 'object' && record.detail !== null && typeof record.detail.code === 'string') return record.detail.code;
  return null;
}
