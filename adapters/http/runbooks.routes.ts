/**
 * Runbook routes of this slice (SPEC.md "Runbooks and runs"): `GET /runbooks`,
 * `GET /runbooks/<slug>`, `POST /runbooks/validate` -> `{errors: [{loc, msg}]}`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { requireJson, validate } from './validation.ts';

export function runbookRoutes(deps: HttpDeps) {
  const read = requirePermission('read', 'svc:runbooks:read', deps.permissions);
  return new Hono<AppEnv>()
    .get('/runbooks', describeRoute({ summary: 'List runbooks', tags: ['runbooks'] }), read, (c) =>
      c.json({
        items: deps.runbooks.list().map((r) => ({ id: r.id, name: r.name, description: r.description, version: r.version, enabled: r.enabled, trigger: r.trigger })),
      }),
    )
    .get('/runbooks/:slug', describeRoute({ summary: 'Runbook detail', tags: ['runbooks'] }), read, (c) => {
      const runbook = deps.runbooks.get(c.req.param('slug'));
      if (!runbook) throw notFound('runbook_not_found', 'runbook not found', { slug: c.req.param('slug') });
      return c.json(runbook);
    })
    .post(
      '/runbooks/validate',
      describeRoute({ summary: 'Validate runbook YAML', tags: ['runbooks'] }),
      read,
      requireJson,
      validate('json', v.strictObject({ yaml_text: v.pipe(v.string(), v.maxLength(512 * 1024)) })),
      (c) => c.json({ errors: deps.runbooks.validate(c.req.valid('json').yaml_text) }),
    );
}
