/**
 * Webhook source routes (SPEC.md "Webhook source"; "Webhook intake" table): `GET, POST
 * /webhook-sources`, `PATCH, DELETE /webhook-sources/<id>`, `POST
 * /webhook-sources/<id>/rotate`, all with `manage_connections`. The token is returned
 * only by create and rotate; a `pager_a` `signing_secret` is write-only.
 *
 * A source belongs to its `team` (null: install-wide), and a caller manages only the
 * sources of a team where it holds `manage_connections` or a realm grant does (issue 46):
 * the list shows only those; create and a PATCH that moves `team` into any other team
 * answer 403 `forbidden`; PATCH, DELETE and rotate of a source the caller may not manage
 * answer 404 `webhook_source_not_found`, as for an unknown id, so its existence stays hidden.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { fieldMapKeys } from '../../domain/webhook-sources/generic.ts';
import { notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import { hasPermission } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { WEBHOOK_SLUG, webhookSourceSchema, webhookSourceTypes, webhookSourceWithTokenSchema } from '../webhook-sources/store.ts';
import { requirePermission, requireTeamPermission } from './auth.ts';
import { changedKeys, recordAudit } from './audited.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { idParam } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** Endpoints of their own under /webhooks/ that no source may take. */
const RESERVED_SLUGS = new Set(['detector', 'chat-interactions']);

const slug = v.pipe(
  v.string(),
  v.regex(WEBHOOK_SLUG, 'must be 2-63 chars of a-z, 0-9 or -, starting with a letter or digit'),
  v.check((s) => !RESERVED_SLUGS.has(s), 'is reserved'),
);
const path = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(256));
const fieldMap = v.strictObject(
  Object.fromEntries(fieldMapKeys.map((k) => [k, v.optional(path)])) as Record<(typeof fieldMapKeys)[number], v.OptionalSchema<typeof path, undefined>>,
);
const name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200));
const team = v.nullable(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)));
const secret = v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'), v.maxLength(1024));

/** The answer of GET /webhook-sources. */
const webhookSourceListSchema = v.strictObject({ items: v.array(webhookSourceSchema) });

/** The answers of a source the caller may not manage, declared where they are given. */
const notManageable = jsonAnswer(errorBodySchema, 'webhook_source_not_found: no such source, or one of a team the caller does not manage');
const otherTeam = jsonAnswer(errorBodySchema, 'forbidden: manage_connections is needed in the team named (a realm grant for team null)');

/** What the webhook source routes read of the service (adapters/http/deps.ts). */
export type WebhookSourceRouteDeps = Pick<HttpDeps, 'audit' | 'caseConfig' | 'permissions' | 'waitFor' | 'webhookSources'>;

export function webhookSourceRoutes(deps: WebhookSourceRouteDeps) {
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions);
  /** Whether `principal` manages the sources of `team`: a grant in that team or a realm grant; team null needs a realm grant. */
  const mayManage = (principal: Principal, team: string | null) => hasPermission(principal, 'manage_connections', deps.permissions, team);
  /** The source `id` when `principal` may manage it; one it may not is answered exactly as an unknown id. */
  const manageable = async (principal: Principal, id: string) => {
    const source = await deps.webhookSources.get(id);
    if (!mayManage(principal, source.team)) throw notFound('webhook_source_not_found', 'webhook source not found', { source_id: id });
    return source;
  };
  const severity = v.picklist(deps.caseConfig.severities, `must be one of ${deps.caseConfig.severities.join(', ')}`);
  /** Rules across fields, each naming its field: a generic source needs a title path; only pager_a takes a signing secret, and needs one. */
  const crossCheck = (type: string, map: Record<string, unknown> | undefined, signing: string | null | undefined, creating: boolean) => {
    const issues = [];
    if (type === 'generic' && creating && !map?.rule_title)
      issues.push({ loc: ['body', 'field_map', 'rule_title'], msg: 'a generic source needs the path of its alert title', type: 'missing' });
    if (type !== 'generic' && map !== undefined && Object.keys(map).length > 0)
      issues.push({ loc: ['body', 'field_map'], msg: 'only a generic source takes a field_map', type: 'value_error' });
    if (type === 'pager_a' && creating && !signing)
      issues.push({ loc: ['body', 'signing_secret'], msg: 'a pager_a source needs the signing secret of its subscription', type: 'missing' });
    if (type !== 'pager_a' && signing)
      issues.push({ loc: ['body', 'signing_secret'], msg: 'only a pager_a source takes a signing secret', type: 'value_error' });
    if (issues.length > 0) throw new ValidationFailed(issues);
  };

  return new Hono<AppEnv>()
    .get(
      '/webhook-sources',
      describeRoute({
        summary: 'List webhook sources (tokens never shown)',
        tags: ['webhook-sources'],
        responses: { 200: jsonAnswer(webhookSourceListSchema, 'Every source of a team the caller manages, by slug') },
      }),
      manage,
      async (c) => {
        const principal = c.get('principal');
        const items = (await deps.webhookSources.list()).filter((s) => mayManage(principal, s.team));
        return c.json({ items } satisfies v.InferOutput<typeof webhookSourceListSchema>);
      },
    )
    .post(
      '/webhook-sources',
      describeRoute({
        summary: 'Create a webhook source; its token is in this answer only',
        tags: ['webhook-sources'],
        responses: { 201: jsonAnswer(webhookSourceWithTokenSchema, 'The source and its token, shown this once'), 403: otherTeam },
      }),
      manage,
      requireJson,
      validate(
        'json',
        v.object({
          type: v.picklist(webhookSourceTypes, `must be one of ${webhookSourceTypes.join(', ')}`),
          slug,
          name,
          team: v.optional(team, null),
          field_map: v.optional(fieldMap),
          default_severity: v.optional(severity),
          signing_secret: v.optional(v.nullable(secret)),
        }),
      ),
      async (c) => {
        const body = c.req.valid('json');
        requireTeamPermission(c.get('principal'), 'manage_connections', body.team, deps.permissions);
        crossCheck(body.type, body.field_map, body.signing_secret, true);
        const created = await deps.webhookSources.create({
          slug: body.slug,
          type: body.type,
          name: body.name,
          team: body.team,
          fieldMap: body.field_map ?? {},
          defaultSeverity: body.default_severity ?? defaultSeverityOf(deps.caseConfig.severities),
          signingSecret: body.signing_secret ?? null,
        });
        await recordAudit(deps, c.get('principal'), {
          action: 'webhook_source.create',
          target: { type: 'webhook_source', id: created.id },
          team: created.team,
          detail: { slug: created.slug, type: created.type },
        });
        return c.json(created, 201);
      },
    )
    .patch(
      '/webhook-sources/:id',
      describeRoute({
        summary: 'Change a webhook source',
        tags: ['webhook-sources'],
        responses: { 200: jsonAnswer(webhookSourceSchema, 'The changed source, without its token'), 403: otherTeam, 404: notManageable },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate(
        'json',
        v.object({
          name: v.optional(name),
          team: v.optional(team),
          field_map: v.optional(fieldMap),
          default_severity: v.optional(severity),
          enabled: v.optional(v.boolean()),
          signing_secret: v.optional(secret),
        }),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const current = await manageable(principal, id);
        if (body.team !== undefined) requireTeamPermission(principal, 'manage_connections', body.team, deps.permissions);
        crossCheck(current.type, body.field_map, body.signing_secret, false);
        if (current.type === 'generic' && body.field_map && !body.field_map.rule_title) {
          throw new ValidationFailed([
            { loc: ['body', 'field_map', 'rule_title'], msg: 'a generic source needs the path of its alert title', type: 'missing' },
          ]);
        }
        const updated = await deps.webhookSources.update(id, {
          name: body.name,
          team: body.team,
          fieldMap: body.field_map,
          defaultSeverity: body.default_severity,
          enabled: body.enabled,
          signingSecret: body.signing_secret,
        });
        await recordAudit(deps, c.get('principal'), {
          action: 'webhook_source.update',
          target: { type: 'webhook_source', id },
          team: updated.team,
          detail: { slug: updated.slug, type: updated.type, changed: changedKeys(body) },
        });
        return c.json(updated);
      },
    )
    .delete(
      '/webhook-sources/:id',
      describeRoute({
        summary: 'Delete a webhook source',
        tags: ['webhook-sources'],
        responses: { 204: { description: 'Deleted' }, 404: notManageable },
      }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const removed = await manageable(c.get('principal'), id);
        await deps.webhookSources.remove(id);
        await recordAudit(deps, c.get('principal'), {
          action: 'webhook_source.delete',
          target: { type: 'webhook_source', id },
          team: removed.team,
          detail: { slug: removed.slug, type: removed.type },
        });
        return c.body(null, 204);
      },
    )
    .post(
      '/webhook-sources/:id/rotate',
      describeRoute({
        summary: 'Replace the token of a webhook source; the old one stops working at once',
        tags: ['webhook-sources'],
        responses: { 200: jsonAnswer(webhookSourceWithTokenSchema, 'The source and its new token, shown this once'), 404: notManageable },
      }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await manageable(c.get('principal'), id);
        const rotated = await deps.webhookSources.rotate(id);
        await recordAudit(deps, c.get('principal'), {
          action: 'webhook_source.rotate_token',
          target: { type: 'webhook_source', id: rotated.id },
          team: rotated.team,
          detail: { slug: rotated.slug, type: rotated.type },
        });
        return c.json(rotated);
      },
    );
}

/** `medium` when configured, else the middle configured severity. */
function defaultSeverityOf(severities: readonly string[]): string {
  return severities.includes('medium') ? 'medium' : (severities[Math.floor(severities.length / 2)] ?? 'medium');
}
