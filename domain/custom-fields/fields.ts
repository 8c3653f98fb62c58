/**
 * Custom fields (docs/configuration.md "Custom fields"; issue 50): typed values a team
 * defines for its cases, checked by type, and optionally required before a case is
 * resolved or closed. Pure: definitions and values come in, verdicts go out.
 */

export const customFieldTypes = ['string', 'number', 'boolean', 'date', 'enum', 'multi_enum', 'user'] as const;
export type CustomFieldType = (typeof customFieldTypes)[number];

/** When a field must hold a value: before any closed status (`resolve`), or before the closing one (`close`). */
export const requiredStages = ['close', 'resolve'] as const;
export type RequiredStage = (typeof requiredStages)[number];

/** A field's name: a lower-case slug, as `cf.<name>` names it in list queries. */
export const CUSTOM_FIELD_NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** Longest `string` value, characters. */
export const CUSTOM_FIELD_STRING_MAX = 2000;

/** A definition as the rules read it. */
export type CustomFieldDefinition = {
  name: string;
  type: CustomFieldType;
  options: readonly string[] | null;
  /** The team whose cases it applies to; null: every case. */
  team: string | null;
  requiredAt: RequiredStage | null;
};

/** A custom field value as stored: a string, number, boolean or list of strings. */
export type CustomFieldValue = string | number | boolean | string[];

/** Whether the definition applies to a case of `team` (org-wide ones apply to all). */
export const appliesTo = (definition: Pick<CustomFieldDefinition, 'team'>, team: string | null): boolean =>
  definition.team === null || definition.team === team;

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `value` checked against `definition`'s type: the value to store, or the reason it is
 * refused. Dates are calendar days (`YYYY-MM-DD`, a real day); `multi_enum` values keep
 * their order without repeats; `user` is a user id (whether the user exists is the caller's check).
 */
export function checkFieldValue(definition: CustomFieldDefinition, value: unknown): { ok: true; value: CustomFieldValue } | { ok: false; reason: string } {
  const options = definition.options ?? [];
  switch (definition.type) {
    case 'string':
      return typeof value === 'string' && value.trim() !== '' && value.length <= CUSTOM_FIELD_STRING_MAX
        ? { ok: true, value }
        : { ok: false, reason: `must be a non-empty string of at most ${CUSTOM_FIELD_STRING_MAX} characters` };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, reason: 'must be a finite number' };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, reason: 'must be true or false' };
    case 'date':
      return typeof value === 'string' && isoDate.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
        ? { ok: true, value }
        : { ok: false, reason: 'must be a date, YYYY-MM-DD' };
    case 'enum':
      return typeof value === 'string' && options.includes(value) ? { ok: true, value } : { ok: false, reason: `must be one of ${options.join(', ')}` };
    case 'multi_enum':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && options.includes(v))
        ? { ok: true, value: [...new Set(value as string[])] }
        : { ok: false, reason: `must be a non-empty list of ${options.join(', ')}` };
    case 'user':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
        ? { ok: true, value: value.toLowerCase() }
        : { ok: false, reason: 'must be a user id' };
  }
}

/**
 * The stages a move into `status` reaches: every status of `closedStatuses` resolves the
 * case, and the last of them (where `close` puts a case) also closes it.
 */
export function stagesOf(status: string, closedStatuses: readonly string[]): RequiredStage[] {
  if (!closedStatuses.includes(status)) return [];
  return status === closedStatuses.at(-1) ? ['resolve', 'close'] : ['resolve'];
}

/** What a status change checks custom fields against: every definition, and the configured closed statuses (the last closes). */
export type FieldRules = { definitions: readonly CustomFieldDefinition[]; closedStatuses: readonly string[] };

/** The names of the fields of `definitions` that apply to a case of `team` and must hold a value before it moves into `status`, by name. */
export function requiredFieldNames(
  definitions: readonly CustomFieldDefinition[],
  team: string | null,
  status: string,
  closedStatuses: readonly string[],
): string[] {
  const stages = stagesOf(status, closedStatuses);
  return definitions
    .filter((d) => d.requiredAt !== null && stages.includes(d.requiredAt) && appliesTo(d, team))
    .map((d) => d.name)
    .sort();
}
