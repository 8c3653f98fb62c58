/**
 * The caller's in-app notifications (SPEC.md "Notification (in-app)", "Live updates
 * and inbox"): `GET /notifications` (`unread_only`, `limit`) and
 * `POST /notifications/read` (`{ids?}`; without ids, everything unread). Only a person
 * (a caller with a user row) has an inbox.
 */
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import type { NotificationsTable } from '../../projections/database.ts';
import { listNotifications, markNotificationsRead } from '../../projections/notifications/notifications.queries.ts';
import type { Principal } from '../identity/principal.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { iso, paging, queryFlag, uuid } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** An in-app notification (SPEC.md "Notification (in-app)"); `href`, under the public prefix, only when it is about something to open. */
export const notificationSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    kind: v.string(),
    severity: v.string(),
    title: v.string(),
    context: v.record(v.string(), v.unknown()),
    at: v.string(),
    read: v.boolean(),
    href: v.optional(v.string()),
  }),
  v.metadata({ ref: 'Notification' }),
);

type Notification = v.InferOutput<typeof notificationSchema>;

/** A stored notification as answered; `prefix` is the public UI prefix `href` goes under (SVC_PUBLIC_PREFIX, no trailing slash). */
export function notificationView(r: Selectable<NotificationsTable>, prefix: string): Notification {
  return {
    id: r.id,
    kind: r.kind,
    severity: r.severity,
    title: r.title,
    context: r.context,
    at: iso(r.at),
    read: r.read_at !== null,
    ...(r.href !== null && { href: `${prefix}${r.href}` }),
  };
}

const personOf = (p: Principal): string => {
  if (p.userId === null) throw new DomainError('forbidden', 403, 'notifications belong to a person; this token acts for none');
  return p.userId;
};

/** What the notification routes read of the service (adapters/http/deps.ts). */
export type NotificationRouteDeps = Pick<HttpDeps, 'db' | 'now' | 'permissions' | 'publicPrefix'>;

export function notificationRoutes(deps: NotificationRouteDeps) {
  // Notifications are about cases: exchange tokens need the cases scopes.
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const markRead = requirePermission('read', 'svc:cases:write', deps.permissions);
  const prefix = deps.publicPrefix;
  return new Hono<AppEnv>()
    .get(
      '/notifications',
      describeRoute({
        summary: 'My in-app notifications, newest first',
        tags: ['notifications'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(notificationSchema) }), 'My notifications, newest first') },
      }),
      read,
      validate(
        'query',
        v.object({
          unread_only: queryFlag,
          limit: paging.limit,
        }),
      ),
      async (c) => {
        const q = c.req.valid('query');
        const rows = await listNotifications(deps.db, personOf(c.get('principal')), { unreadOnly: q.unread_only, limit: q.limit });
        return c.json({ items: rows.map((r) => notificationView(r, prefix)) });
      },
    )
    .post(
      '/notifications/read',
      describeRoute({
        summary: 'Mark my notifications read (the ids given, or all unread)',
        tags: ['notifications'],
        responses: { 200: jsonAnswer(v.strictObject({ updated: v.number() }), 'How many notifications turned read') },
      }),
      markRead,
      requireJson,
      validate('json', v.object({ ids: v.optional(v.pipe(v.array(uuid), v.maxLength(500))) })),
      async (c) => {
        const { ids } = c.req.valid('json');
        const updated = await markNotificationsRead(deps.db, personOf(c.get('principal')), ids ?? null, deps.now());
        return c.json({ updated });
      },
    );
}
