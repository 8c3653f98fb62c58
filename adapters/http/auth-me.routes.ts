/**
 * `GET /auth/me` (SPEC.md "Endpoints", Identity): who the caller is.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import { highestRole } from '../identity/permissions.ts';
import { roles } from '../identity/principal.ts';
import type { AppEnv } from './context.ts';
import { jsonAnswer } from './openapi.ts';

/** The current user: local id, email and name, and the highest role among their grants (null with none). */
export const meSchema = v.strictObject({
  id: v.string(),
  email: v.nullable(v.string()),
  full_name: v.nullable(v.string()),
  role: v.nullable(v.picklist(roles)),
});

/**
 * Routes for the current user; mount behind authenticate(). `GET /auth/me`
 * answers `{id, email, full_name, role}`: the local user id, the person's email
 * and name, and the highest role among their grants (null with none).
 *
 * @throws DomainError 403 `forbidden` when the token acts for no person (a workload
 *   exchange token without `act`, or the identity service token).
 */
export function authMeRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().get(
    '/auth/me',
    describeRoute({
      summary: 'Who I am: my user id, email, name and highest role',
      tags: ['identity'],
      responses: { 200: jsonAnswer(meSchema, 'The current user') },
    }),
    (c) => {
      const principal = c.get('principal');
      if (principal.userId === null) throw new DomainError('forbidden', 403, 'the token does not act for a person');
      return c.json({
        id: principal.userId,
        email: principal.email,
        full_name: principal.name,
        role: highestRole(principal),
      } satisfies v.InferOutput<typeof meSchema>);
    },
  );
}
