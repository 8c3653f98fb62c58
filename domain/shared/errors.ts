/**
 * The one typed error family of the service (SPEC.md "Errors").
 *
 * A DomainError carries a stable `code`, an HTTP `status` and `params`; the HTTP
 * layer maps it to `{detail, code, params}` in its single error handler.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly detail: string,
    readonly params: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

/** 404 for a resource that does not exist or is not visible to the caller. */
export function notFound(code: string, detail: string, params: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, 404, detail, params);
}

/** 409 for a command that conflicts with the current state. */
export function conflict(code: string, detail: string, params: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, 409, detail, params);
}

/** 422 for a well-formed request that the domain rules refuse. */
export function unprocessable(code: string, detail: string, params: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, 422, detail, params);
}

/**
 * Request or document validation failure: HTTP 422 with the framework shape
 * `{detail: [{loc, msg, type}]}` and no `code` (CONTRACTS.md section 3).
 */
export class ValidationFailed extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ValidationFailed';
  }
}

/** One validation problem: `loc` is the path to the offending field. */
export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };
