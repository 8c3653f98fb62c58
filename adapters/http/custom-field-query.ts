/**
 * The case list's custom field parameters (docs/configuration.md "Custom fields"):
 * `cf.<name>=<value>` keeps the cases whose field holds that value (for `multi_enum`, holds
 * it among others), and `sort=cf.<name>` (`-cf.<name>` descending) orders by the field,
 * cases without a value last. The value is read as the field's type: `number` a number,
 * `boolean` `true` or `false`, the rest as written.
 */
import type { CustomFieldValue } from '../../domain/custom-fields/fields.ts';
import { ValidationFailed, type ValidationIssue } from '../../domain/shared/errors.ts';
import type { CustomFieldFilter, CustomFieldSort } from '../../projections/cases/cases.queries.ts';
import type { CustomField, CustomFieldStore } from '../custom-fields/store.ts';

/** What `sort` accepts: a custom field, ascending or (`-`) descending. */
export const CUSTOM_FIELD_SORT = /^-?cf\.[a-z][a-z0-9_]{0,62}$/;

/**
 * The custom field filters and sort of a raw query string, checked against the defined fields.
 *
 * @throws ValidationFailed 422 at `query.cf.<name>` for an unknown field or a value of the
 *   wrong type, at `query.sort` for an unknown field.
 */
export async function customFieldQuery(
  fields: Pick<CustomFieldStore, 'all'>,
  raw: Record<string, string>,
): Promise<{ filters: CustomFieldFilter[]; sort: CustomFieldSort | null }> {
  const named = Object.keys(raw).filter((key) => key.startsWith('cf.'));
  const sortKey = raw.sort;
  if (named.length === 0 && sortKey === undefined) return { filters: [], sort: null };
  const byName = new Map((await fields.all()).map((f) => [f.name, f]));
  const issues: ValidationIssue[] = [];
  const filters: CustomFieldFilter[] = [];
  for (const key of named) {
    const field = byName.get(key.slice(3));
    const value = field && filterValue(field, raw[key] ?? '');
    if (value === undefined)
      issues.push({ loc: ['query', key], msg: field ? `not a value of this ${field.type} field` : 'no such custom field', type: 'value_error' });
    else filters.push({ name: key.slice(3), value });
  }
  let sort: CustomFieldSort | null = null;
  if (sortKey !== undefined) {
    const descending = sortKey.startsWith('-');
    const name = sortKey.slice(descending ? 4 : 3);
    if (byName.has(name)) sort = { name, descending };
    else issues.push({ loc: ['query', 'sort'], msg: 'no such custom field', type: 'value_error' });
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
  return { filters, sort };
}

/** The stored shape `text` stands for in `field`, or undefined when it is not one. */
function filterValue(field: CustomField, text: string): CustomFieldValue | undefined {
  switch (field.type) {
    case 'number': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'multi_enum':
      return [text];
    case 'user':
      return text.toLowerCase();
    default:
      return text;
  }
}
