/**
 * Custom action routes (SPEC.md "Actions and connections": `POST /custom-actions`; the
 * body is "not shown" there, so it is ours, in docs/configuration.md "Custom actions"),
 * all with `manage_connections` through a realm grant: a custom action is install-wide
 * (every team's runbooks may call it), so no team admin manages it (issue 46):
 * - `POST /custom-actions {spec, acknowledge_danger?}` -> 201 with the action's view;
 * - `GET /custom-actions` -> `{items}` by name; `GET /custom-actions/<id>` -> the view;
 * - `PUT /custom-actions/<id> {spec, acknowledge_danger?}` -> the view at its new version
 *   (the name cannot change);
 * - `POST /custom-actions/<id>/disable|enable` -> the view;
 * - `GET /custom-actions/<id>/versions` -> `{items}`, newest first.
 *
 * A spec is checked by its schema, then by `specProblems` (templates, path, names), both
 * answered as 422 validation failures, then decided (domain/custom-actions/decide.ts:
 * the arbitrary tier needs a global administrator, an admin grant with no team, and
 * `acknowledge_danger: true`; the API may not declare managed effect types). Each change
 * is audited in its own append. Custom actions are stored here; running them is not built yet.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { customActionSpecSchema, effectTypes, risks } from '../../domain/custom-actions/spec.ts';
import { specProblems } from '../../domain/custom-actions/templates.ts';
import { notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import { findCustomAction, listCustomActions, listCustomActionVersions } from '../../projections/custom-actions/custom-actions.queries.ts';
import { auditActorOf } from '../commands/audit.ts';
import type { CustomActionAuthorship, CustomActionResult } from '../commands/custom-actions.ts';
import { hasPermission } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { requirePermission } from './auth.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { idParam } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** The body of a save: the whole spec, and the acknowledgement the arbitrary tier needs. */
const saveBody = v.object({
  spec: customActionSpecSchema,
  /** Required true to save a spec with `risk` or `effect_type` `arbitrary` (global administrators only). */
  acknowledge_danger: v.optional(v.boolean(), false),
});

/** A stored spec: the authored spec without `enabled` (the action's state). */
const storedSpecSchema = v.looseObject({
  name: v.string(),
  title: v.string(),
  transport: v.picklist(['http', 'ssh']),
  risk: v.picklist(risks),
  effect_type: v.picklist(effectTypes),
});

export const customActionViewSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    name: v.string(),
    /** The spec's version: 1 on create, one more per update; disable and enable keep it. */
    version: v.number(),
    enabled: v.boolean(),
    /** Where the current version came from: `api`, or `pack` (integration packs, not built yet). */
    source: v.picklist(['api', 'pack']),
    spec: storedSpecSchema,
    created_at: v.string(),
    created_by: v.nullable(v.string()),
    updated_at: v.string(),
    updated_by: v.nullable(v.string()),
  }),
  v.metadata({ ref: 'CustomAction' }),
);

const versionSchema = v.strictObject({
  version: v.number(),
  enabled: v.boolean(),
  source: v.picklist(['api', 'pack']),
  acknowledged_danger: v.boolean(),
  spec: storedSpecSchema,
  saved_at: v.string(),
  saved_by: v.nullable(v.string()),
});

/** What the custom action routes read of the service (adapters/http/deps.ts). */
export type CustomActionRouteDeps = Pick<HttpDeps, 'customActions' | 'db' | 'permissions' | 'waitFor'>;

export function customActionRoutes(deps: CustomActionRouteDeps) {
  const read = requirePermission('manage_connections', 'svc:connections:read', deps.permissions, null);
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions, null);

  const authorship = (principal: Principal): CustomActionAuthorship => ({
    actor: actorOf(principal),
    audit: auditActorOf(principal),
    // A global administrator: the `admin` permission through a grant with no team.
    globalAdmin: hasPermission(principal, 'admin', deps.permissions, null),
  });
  const viewOf = async (id: string) => {
    const found = await findCustomAction(deps.db, id);
    if (!found) throw notFound('custom_action_not_found', 'custom action not found', { custom_action_id: id });
    return found as v.InferOutput<typeof customActionViewSchema>;
  };
  /** The view once the change is projected. */
  const settled = async (r: CustomActionResult) => {
    await deps.waitFor(r.position);
    return viewOf(r.customActionId);
  };
  /** The template, path and name rules of a spec, as a validation failure under `body.spec`. */
  const checkSpec = (spec: v.InferOutput<typeof customActionSpecSchema>) => {
    const problems = specProblems(spec);
    if (problems.length > 0) throw new ValidationFailed(problems.map((p) => ({ loc: ['body', 'spec', ...p.loc], msg: p.msg, type: p.type })));
  };

  return new Hono<AppEnv>()
    .get(
      '/custom-actions',
      describeRoute({
        summary: 'List custom actions',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(customActionViewSchema) }), 'Every custom action at its current version, by name') },
      }),
      read,
      async (c) => c.json({ items: await listCustomActions(deps.db) }),
    )
    .post(
      '/custom-actions',
      describeRoute({
        summary: 'Create a custom action (version 1)',
        tags: ['custom-actions'],
        responses: {
          201: jsonAnswer(customActionViewSchema, 'The custom action'),
          409: jsonAnswer(errorBodySchema, 'custom_action_exists: another custom action has this name'),
        },
      }),
      manage,
      requireJson,
      validate('json', saveBody),
      async (c) => {
        const body = c.req.valid('json');
        checkSpec(body.spec);
        const r = await deps.customActions.create(body.spec, { acknowledgeDanger: body.acknowledge_danger, source: 'api' }, authorship(c.get('principal')));
        return c.json(await settled(r), 201);
      },
    )
    .get(
      '/custom-actions/:id',
      describeRoute({
        summary: 'One custom action',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(customActionViewSchema, 'The custom action at its current version') },
      }),
      read,
      validate('param', idParam),
      async (c) => c.json(await viewOf(c.req.valid('param').id)),
    )
    .put(
      '/custom-actions/:id',
      describeRoute({
        summary: 'Replace the spec of a custom action as its next version (the name cannot change)',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(customActionViewSchema, 'The custom action; an unchanged spec keeps its version') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', saveBody),
      async (c) => {
        const body = c.req.valid('json');
        checkSpec(body.spec);
        const r = await deps.customActions.update(
          c.req.valid('param').id,
          body.spec,
          { acknowledgeDanger: body.acknowledge_danger, source: 'api' },
          authorship(c.get('principal')),
        );
        return c.json(await settled(r));
      },
    )
    .post(
      '/custom-actions/:id/disable',
      describeRoute({
        summary: 'Disable a custom action (runbooks may not use it); its version stays',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(customActionViewSchema, 'The custom action, disabled') },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await settled(await deps.customActions.disable(c.req.valid('param').id, authorship(c.get('principal'))))),
    )
    .post(
      '/custom-actions/:id/enable',
      describeRoute({
        summary: 'Enable a custom action; an arbitrary-tier one needs a global administrator',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(customActionViewSchema, 'The custom action, enabled') },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await settled(await deps.customActions.enable(c.req.valid('param').id, authorship(c.get('principal'))))),
    )
    .get(
      '/custom-actions/:id/versions',
      describeRoute({
        summary: 'Every saved version of a custom action, newest first',
        tags: ['custom-actions'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(versionSchema) }), 'The versions, each with its whole spec') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await viewOf(id);
        return c.json({ items: await listCustomActionVersions(deps.db, id) });
      },
    );
}
