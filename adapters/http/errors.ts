/**
 * The single error handler (SPEC.md "Errors"; docs/architecture.md "Habits" 6): DomainError ->
 * `{detail, code, params}` with its status (and `Retry-After` from `params.retry_after_s`
 * on a 429 or 503); ValidationFailed -> 422
 * `{detail: [{loc, msg, type}]}`; anything else -> 500 `internal_error` with no
 * stack, message or secret in the body (the error is logged server-side only).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { InferOutput } from 'valibot';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import type { errorBodySchema } from './openapi.ts';

export type ErrorLogger = (error: unknown, context: { method: string; path: string }) => void;

/** The `{detail, code, params}` body, of the shape `errorBodySchema` declares in `/openapi.json`. */
export function errorBody(detail: string | Record<string, unknown>, code: string, params: Record<string, unknown> = {}): InferOutput<typeof errorBodySchema> {
  return { detail, code, params };
}

export function createErrorHandler(log: ErrorLogger) {
  return (error: Error, c: Context) => {
    if (error instanceof DomainError) {
      // A refusal that says when to come back says it in the standard header too (RFC 9110 section 10.2.3).
      const retryAfter = error.params.retry_after_s;
      if ((error.status === 429 || error.status === 503) && typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
      return c.json(errorBody(error.detail, error.code, error.params), error.status as ContentfulStatusCode);
    }
    if (error instanceof ValidationFailed) {
      return c.json({ detail: error.issues }, 422);
    }
    if (error instanceof HTTPException && error.status < 500) {
      const code = error.status === 413 ? 'payload_too_large' : error.status === 415 ? 'unsupported_media_type' : 'bad_request';
      return c.json(errorBody(error.message || 'bad request', code), error.status as ContentfulStatusCode);
    }
    log(error, { method: c.req.method, path: c.req.path });
    return c.json(errorBody('internal error', 'internal_error'), 500);
  };
}

export function notFoundHandler(c: Context) {
  return c.json(errorBody('no such route', 'route_not_found', { method: c.req.method }), 404);
}
