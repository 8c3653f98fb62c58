/**
 * Connection routes of this slice (SPEC.md "Actions and connections"): create and
 * list with write-only secrets (`manage_connections`). Update, delete, rotate and
 * test come with the connections issue.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { requireJson, validate } from './validation.ts';

const kinds = ['detector', 'pipeline', 'chat_a', 'ticket_a', 'ticket_b', 'pager_a', 'pager_b', 'chat_b', 'email_smtp', 'imap', 'mailbox_graph', 'mcp', 'object_storage', 'webhook', 'http', 'ssh'] as const;

export function connectionRoutes(deps: HttpDeps) {
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions);
  return new Hono<AppEnv>()
    .get('/connections', describeRoute({ summary: 'List connections (secrets never returned)', tags: ['connections'] }), manage, async (c) =>
      c.json({ items: await deps.connections.list() }),
    )
    .post(
      '/connections',
      describeRoute({ summary: 'Create a connection', tags: ['connections'] }),
      manage,
      requireJson,
      validate(
        'json',
        v.strictObject({
          kind: v.picklist(kinds),
          name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'must be 2-64 chars of a-z, 0-9, _ or -')),
          base_url: v.optional(v.nullable(v.pipe(v.string(), v.url('must be a URL')))),
          config: v.optional(v.record(v.string(), v.unknown()), {}),
          secret: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(16_384)))),
        }),
      ),
      async (c) => c.json(await deps.connections.create(c.req.valid('json')), 201),
    );
}
