/**
 * The person a case or a task is given to (SPEC.md "Cases": `POST /cases/<id>/assign`,
 * tasks' `assignee_id`; "Other case moves": the new assignee is notified): an active user
 * who can see the case once given it. Someone who could not (another team, a private case
 * they are no member of) is refused like an unnotified mention (`no_access`), so
 * assignment never opens a case, or its notifications, to someone outside it (issue 46).
 */
import type { Kysely } from 'kysely';
import { notFound, unprocessable } from '../../domain/shared/errors.ts';
import type { ScopedCase } from '../../projections/cases/case-scope.ts';
import type { Database } from '../../projections/database.ts';
import { userCanSeeCase } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import type { Grant } from '../identity/principal.ts';

/**
 * The active user `id`, given `theCase` as `field` (`owner_id`: the case as it would be
 * with them as owner; `assignee_id`: as it is). Errors: 404 `user_not_found` (no active
 * user with that id), 422 `assignee_no_access` (`params {<field>, reason: 'no_access'}`).
 */
export async function assignableUser(
  db: Kysely<Database>,
  matrix: PermissionMatrix,
  id: string,
  theCase: ScopedCase,
  field: 'owner_id' | 'assignee_id',
): Promise<{ id: string; email: string }> {
  const user = await db.selectFrom('users').select(['id', 'email', 'grants']).where('id', '=', id).where('active', '=', true).executeTakeFirst();
  if (!user) throw notFound('user_not_found', 'no active user with that id', { [field]: id });
  const given = field === 'owner_id' ? { ...theCase, owner_id: user.id } : theCase;
  if (!userCanSeeCase({ id: user.id, grants: user.grants as Grant[] }, given, matrix)) {
    throw unprocessable('assignee_no_access', `${user.email} cannot see this case (no_access), so it cannot be given to them`, {
      [field]: id,
      reason: 'no_access',
    });
  }
  return { id: user.id, email: user.email };
}
