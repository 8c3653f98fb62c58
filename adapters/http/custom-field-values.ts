/**
 * Custom field values of a case request (docs/configuration.md "Custom fields"): each named
 * field must be defined for the case's team (org-wide or the team's own), and its value
 * must fit the field's type (domain/custom-fields/fields.ts); a `user` value must name a
 * known user. Every problem is reported at once, 422 at `body.custom_fields.<name>`.
 */
import type { Kysely } from 'kysely';
import { appliesTo, checkFieldValue, type CustomFieldValue } from '../../domain/custom-fields/fields.ts';
import { ValidationFailed, type ValidationIssue } from '../../domain/shared/errors.ts';
import type { Database } from '../../projections/database.ts';
import { definitionOf, type CustomFieldStore } from '../custom-fields/store.ts';

/**
 * The values to set on a case of `team` (null clears a field), checked.
 *
 * @throws ValidationFailed naming each unknown field, each value of the wrong type and each unknown user.
 */
export async function checkedCustomFields(
  db: Kysely<Database>,
  fields: Pick<CustomFieldStore, 'all'>,
  team: string | null,
  given: Record<string, unknown>,
): Promise<Record<string, CustomFieldValue | null>> {
  const definitions = new Map((await fields.all()).map((f) => [f.name, definitionOf(f)]));
  const issues: ValidationIssue[] = [];
  const checked: Record<string, CustomFieldValue | null> = {};
  const users: [string, string][] = [];
  for (const [name, value] of Object.entries(given)) {
    const loc = ['body', 'custom_fields', name];
    const definition = definitions.get(name);
    if (!definition || !appliesTo(definition, team)) {
      issues.push({ loc, msg: `no custom field ${name} applies to this case`, type: 'value_error' });
      continue;
    }
    if (value === null) {
      checked[name] = null;
      continue;
    }
    const verdict = checkFieldValue(definition, value);
    if (!verdict.ok) {
      issues.push({ loc, msg: verdict.reason, type: 'value_error' });
      continue;
    }
    checked[name] = verdict.value;
    if (definition.type === 'user') users.push([name, verdict.value as string]);
  }
  if (users.length > 0) {
    const known = new Set(
      (
        await db
          .selectFrom('users')
          .select('id')
          .where(
            'id',
            'in',
            users.map(([, id]) => id),
          )
          .execute()
      ).map((u) => u.id),
    );
    for (const [name, id] of users) if (!known.has(id)) issues.push({ loc: ['body', 'custom_fields', name], msg: 'no such user', type: 'value_error' });
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
  return checked;
}
