/**
 * Custom field definitions (docs/configuration.md "Custom fields"; issue 50), written in
 * place like saved views: configuration of the case form, not case history (each case's
 * values are events on its stream). A field without a team applies to every case, a
 * team's field to that team's cases. Names are unique across the install, so `cf.<name>`
 * means one field wherever a case is.
 *
 * `rules` is what every status change reads before it decides: the table each time, and
 * a failed read fails the status change (closed, never "not needed").
 */
import type { Kysely, Selectable } from 'kysely';
import * as v from 'valibot';
import {
  customFieldTypes,
  requiredStages,
  type CustomFieldDefinition,
  type FieldRules,
  type CustomFieldType,
  type RequiredStage,
} from '../../domain/custom-fields/fields.ts';
import { conflict, notFound } from '../../domain/shared/errors.ts';
import type { CustomFieldsTable, Database } from '../../projections/database.ts';

/** A definition as the API shows it. */
const customFieldObject = v.strictObject({
  id: v.string(),
  name: v.string(),
  label: v.string(),
  type: v.picklist(customFieldTypes),
  options: v.nullable(v.array(v.string())),
  team_id: v.nullable(v.string()),
  required_at: v.nullable(v.picklist(requiredStages)),
  created_at: v.string(),
  updated_at: v.string(),
});
/** `customFieldObject` as the document's component schema `CustomField`. */
export const customFieldSchema = v.pipe(customFieldObject, v.metadata({ ref: 'CustomField' }));
export type CustomField = v.InferOutput<typeof customFieldSchema>;

/** What a definition is created with; `options` already checked against `type`. */
export type CustomFieldInput = {
  name: string;
  label: string;
  type: CustomFieldType;
  options: string[] | null;
  team: string | null;
  requiredAt: RequiredStage | null;
};

const fieldOf = (row: Selectable<CustomFieldsTable>): CustomField => ({
  id: row.id,
  name: row.name,
  label: row.label,
  type: row.type as CustomFieldType,
  options: row.options,
  team_id: row.team,
  required_at: row.required_at as RequiredStage | null,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});

/** The rules' view of a definition. */
export const definitionOf = (field: CustomField): CustomFieldDefinition => ({
  name: field.name,
  type: field.type,
  options: field.options,
  team: field.team_id,
  requiredAt: field.required_at,
});

/**
 * `now` is the service clock; `closedStatuses` the configured closed statuses, the last
 * being where `close` puts a case (docs/configuration.md "Cases").
 */
export function createCustomFieldStore(db: Kysely<Database>, deps: { ids: () => string; now: () => Date; closedStatuses: readonly string[] }) {
  const all = async (): Promise<CustomField[]> => (await db.selectFrom('custom_fields').selectAll().orderBy('name').execute()).map(fieldOf);
  const find = async (id: string): Promise<CustomField> => {
    const row = await db.selectFrom('custom_fields').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('custom_field_not_found', 'custom field not found', { custom_field_id: id });
    return fieldOf(row);
  };
  return {
    all,
    find,
    /** 409 `custom_field_exists` when the name is taken. */
    create: async (input: CustomFieldInput): Promise<CustomField> => {
      const at = deps.now();
      try {
        const row = await db
          .insertInto('custom_fields')
          .values({
            id: deps.ids(),
            name: input.name,
            label: input.label,
            type: input.type,
            options: input.options === null ? null : JSON.stringify(input.options),
            team: input.team,
            required_at: input.requiredAt,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return fieldOf(row);
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw conflict('custom_field_exists', 'a custom field of this name exists', { name: input.name });
        throw error;
      }
    },
    /** Replaces the label, options and requirement; name, type and team stay. */
    update: async (id: string, change: { label: string; options: string[] | null; requiredAt: RequiredStage | null }): Promise<CustomField> => {
      const row = await db
        .updateTable('custom_fields')
        .set({
          label: change.label,
          options: change.options === null ? null : JSON.stringify(change.options),
          required_at: change.requiredAt,
          updated_at: deps.now(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('custom_field_not_found', 'custom field not found', { custom_field_id: id });
      return fieldOf(row);
    },
    remove: async (id: string): Promise<void> => {
      await db.deleteFrom('custom_fields').where('id', '=', id).execute();
    },
    /** Every definition with the closed statuses: what a status change is checked against. */
    rules: async (): Promise<FieldRules> => ({ definitions: (await all()).map(definitionOf), closedStatuses: deps.closedStatuses }),
  };
}

export type CustomFieldStore = ReturnType<typeof createCustomFieldStore>;
