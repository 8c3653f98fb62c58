/**
 * `GET /auth/me` (SPEC.md "Endpoints", Identity): who the caller is.
 */
import { Hono } from 'hono';
import { DomainError } from '../../domain/shared/errors.ts';
import { highestRole } from '../identity/permissions.ts';
import type { AppEnv } from './context.ts';

/**
 * Routes for the current user; mount behind authenticate(). `GET /auth/me`
 * answers `{id, email, full_name, role}`: the local user id, the person's email
 * and name, and the highest role among their grants (null with none).
 *
 * @throws DomainError 403 `forbidden` when the token acts for no person (a workload
 *   exchange token without `act`, or the identity service token).
 */
export function authMeRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/auth/me', (c) => {
    const principal = c.get('principal');
    if (principal.userId === null) throw new DomainError('forbidden', 403, 'the token does not act for a person');
    return c.json({
      id: principal.userId,
      email: principal.email,
      full_name: principal.name,
      role: highestRole(principal),
    });
  });
}
