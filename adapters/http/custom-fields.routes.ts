/**
 * Custom field definitions (docs/configuration.md "Custom fields"; issue 50):
 * `POST /custom-fields`, `GET /custom-fields`, `GET/PUT/DELETE /custom-fields/<id>`.
 * Anyone who reads cases reads the definitions that apply to cases they may see (org-wide
 * ones and those of their teams; every one with a realm grant). Defining, changing or
 * deleting a field needs `admin` in its team, or a realm admin for an org-wide field.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { CUSTOM_FIELD_NAME, customFieldTypes, requiredStages, type CustomFieldType } from '../../domain/custom-fields/fields.ts';
import { notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import { customFieldSchema, type CustomField } from '../custom-fields/store.ts';
import type { Principal } from '../identity/principal.ts';
import { idParam, nonEmptyText } from '../shared/shapes.ts';
import { requirePermission, requireTeamPermission } from './auth.ts';
import { recordAudit } from './audited.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/** Most options an `enum` or `multi_enum` field offers. */
export const CUSTOM_FIELD_MAX_OPTIONS = 100;

const options = v.pipe(
  v.array(nonEmptyText(100)),
  v.minLength(1, 'name at least one option'),
  v.maxLength(CUSTOM_FIELD_MAX_OPTIONS, `at most ${CUSTOM_FIELD_MAX_OPTIONS} options`),
  v.check((list) => new Set(list).size === list.length, 'an option is named twice'),
);
const requiredAt = v.optional(v.nullable(v.picklist(requiredStages)), null);
/** Options go with the list types only: required there, refused elsewhere. */
const optionsFitType = (type: CustomFieldType, given: string[] | null | undefined) => (type === 'enum' || type === 'multi_enum') === (given != null);
const optionsMessage = 'options are required for enum and multi_enum fields and refused for the other types';

/** Whether `principal` may see cases of `team`'s fields: org-wide ones always, a team's with a grant in it (or a realm grant). */
const seesTeam = (principal: Principal, team: string | null) => team === null || principal.grants.some((grant) => grant.team === null || grant.team === team);

export type CustomFieldRouteDeps = Pick<HttpDeps, 'audit' | 'customFields' | 'permissions' | 'waitFor'>;

export function customFieldRoutes(deps: CustomFieldRouteDeps) {
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const admin = requirePermission('admin', 'svc:admin:write', deps.permissions);
  /** The field if the caller may see it: one of another team reads as absent. */
  const visible = async (principal: Principal, id: string): Promise<CustomField> => {
    const field = await deps.customFields.find(id);
    if (!seesTeam(principal, field.team_id)) throw notFound('custom_field_not_found', 'custom field not found', { custom_field_id: id });
    return field;
  };
  const audited = (principal: Principal, action: 'custom_field.create' | 'custom_field.update' | 'custom_field.delete', field: CustomField) =>
    recordAudit(deps, principal, {
      action,
      target: { type: 'custom_field', id: field.id },
      team: field.team_id,
      detail: { name: field.name, type: field.type, required_at: field.required_at },
    });

  return new Hono<AppEnv>()
    .post(
      '/custom-fields',
      describeRoute({
        summary: 'Define a custom field for every case, or for one team’s cases',
        tags: ['custom-fields'],
        responses: { 201: jsonAnswer(customFieldSchema, 'The new field') },
      }),
      admin,
      requireJson,
      validate(
        'json',
        v.pipe(
          v.strictObject({
            name: v.pipe(v.string(), v.regex(CUSTOM_FIELD_NAME, 'a lower-case slug: a letter, then letters, digits or _, at most 63')),
            label: nonEmptyText(100),
            type: v.picklist(customFieldTypes),
            options: v.optional(v.nullable(options)),
            team_id: v.optional(v.nullable(nonEmptyText(200)), null),
            required_at: requiredAt,
          }),
          v.forward(
            v.check((b) => optionsFitType(b.type, b.options), optionsMessage),
            ['options'],
          ),
        ),
      ),
      async (c) => {
        const body = c.req.valid('json');
        const principal = c.get('principal');
        requireTeamPermission(principal, 'admin', body.team_id, deps.permissions);
        const field = await deps.customFields.create({
          name: body.name,
          label: body.label,
          type: body.type,
          options: body.options ?? null,
          team: body.team_id,
          requiredAt: body.required_at,
        });
        await audited(principal, 'custom_field.create', field);
        return c.json(field, 201);
      },
    )
    .get(
      '/custom-fields',
      describeRoute({
        summary: 'The custom fields that apply to cases the caller may see, by name',
        tags: ['custom-fields'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(customFieldSchema) }), 'The fields') },
      }),
      read,
      async (c) => c.json({ items: (await deps.customFields.all()).filter((field) => seesTeam(c.get('principal'), field.team_id)) }),
    )
    .get(
      '/custom-fields/:id',
      describeRoute({ summary: 'One custom field', tags: ['custom-fields'], responses: { 200: jsonAnswer(customFieldSchema, 'The field') } }),
      read,
      validate('param', idParam),
      async (c) => c.json(await visible(c.get('principal'), c.req.valid('param').id)),
    )
    .put(
      '/custom-fields/:id',
      describeRoute({
        summary: 'Replace a custom field’s label, options and requirement (its name, type and team stay)',
        tags: ['custom-fields'],
        responses: { 200: jsonAnswer(customFieldSchema, 'The field') },
      }),
      admin,
      validate('param', idParam),
      requireJson,
      validate('json', v.strictObject({ label: nonEmptyText(100), options: v.optional(v.nullable(options)), required_at: requiredAt })),
      async (c) => {
        const principal = c.get('principal');
        const body = c.req.valid('json');
        const field = await visible(principal, c.req.valid('param').id);
        requireTeamPermission(principal, 'admin', field.team_id, deps.permissions);
        if (!optionsFitType(field.type, body.options)) throw new ValidationFailed([{ loc: ['body', 'options'], msg: optionsMessage, type: 'value_error' }]);
        const updated = await deps.customFields.update(field.id, { label: body.label, options: body.options ?? null, requiredAt: body.required_at });
        await audited(principal, 'custom_field.update', updated);
        return c.json(updated);
      },
    )
    .delete(
      '/custom-fields/:id',
      describeRoute({
        summary: 'Delete a custom field: cases keep the values they hold, but none can be set or required any more',
        tags: ['custom-fields'],
        responses: { 204: { description: 'Deleted' } },
      }),
      admin,
      validate('param', idParam),
      async (c) => {
        const principal = c.get('principal');
        const field = await visible(principal, c.req.valid('param').id);
        requireTeamPermission(principal, 'admin', field.team_id, deps.permissions);
        await deps.customFields.remove(field.id);
        await audited(principal, 'custom_field.delete', field);
        return c.body(null, 204);
      },
    );
}
