/**
 * Case routes (SPEC.md "Cases"): list, create, detail, status, assign, acknowledge,
 * timeline, comments. Mutations need `manage_cases`; every answer is read back from
 * the projections after they caught up with the command (read-your-writes).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { caseComments, caseTimeline, findCase, listCases } from '../../projections/cases/cases.queries.ts';
import type { Actor } from '../../domain/cases/index.ts';
import type { Principal } from '../identity/principal.ts';
import { requirePermission } from './auth.ts';
import { caseView } from './case-view.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { paging, uuid } from './shapes.ts';
import { requireJson, validate } from './validation.ts';

const idParam = v.object({ id: uuid });
const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max));

export const actorOf = (p: Principal): Actor => ({ userId: p.userId, email: p.email });

export function caseRoutes(deps: HttpDeps) {
  const { caseConfig: cfg, db } = deps;
  const severity = v.picklist(cfg.severities as string[], `must be one of ${cfg.severities.join(', ')}`);
  const status = v.picklist(cfg.statuses as string[], `must be one of ${cfg.statuses.join(', ')}`);
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const manage = requirePermission('manage_cases', 'svc:cases:write', deps.permissions);

  const loadView = async (id: string) => {
    const row = await findCase(db, id);
    if (!row) throw notFound('case_not_found', 'case not found', { case_id: id });
    return caseView(row, new Date());
  };

  return new Hono<AppEnv>()
    .get(
      '/cases',
      describeRoute({ summary: 'List cases', tags: ['cases'] }),
      read,
      validate(
        'query',
        v.object({
          status: v.optional(status),
          severity: v.optional(severity),
          owner: v.optional(v.string()),
          search: v.optional(v.pipe(v.string(), v.maxLength(200))),
          ...paging,
        }),
      ),
      async (c) => {
        const q = c.req.valid('query');
        const { items, total } = await listCases(db, q);
        const now = new Date();
        return c.json({ items: items.map((r) => caseView(r, now)), total, limit: q.limit, offset: q.offset });
      },
    )
    .post(
      '/cases',
      describeRoute({ summary: 'Open a case', tags: ['cases'] }),
      manage,
      requireJson,
      validate(
        'json',
        v.strictObject({
          title: text(500),
          description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20_000)))),
          severity,
          tags: v.optional(v.array(text(100)), []),
          template_id: v.optional(v.nullable(v.string())),
        }),
      ),
      async (c) => {
        const body = c.req.valid('json');
        const r = await deps.cases.open({ title: body.title, description: body.description ?? null, severity: body.severity, tags: body.tags }, actorOf(c.get('principal')));
        await deps.waitFor(r.position);
        return c.json(await loadView(r.caseId), 201);
      },
    )
    .get('/cases/:id', describeRoute({ summary: 'Case detail', tags: ['cases'] }), read, validate('param', idParam), async (c) =>
      c.json(await loadView(c.req.valid('param').id)),
    )
    .post(
      '/cases/:id/status',
      describeRoute({ summary: 'Change the status of a case', tags: ['cases'] }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.strictObject({ status, note: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4000)))) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const r = await deps.cases.changeStatus(id, body.status, body.note ?? null, actorOf(c.get('principal')));
        await deps.waitFor(r.position);
        return c.json(await loadView(id));
      },
    )
    .post(
      '/cases/:id/assign',
      describeRoute({ summary: 'Assign or unassign the owner', tags: ['cases'] }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.strictObject({ owner_id: v.nullable(uuid) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const { owner_id: ownerId } = c.req.valid('json');
        let owner: { id: string; email: string } | null = null;
        if (ownerId !== null) {
          const user = await db.selectFrom('users').select(['id', 'email']).where('id', '=', ownerId).where('active', '=', true).executeTakeFirst();
          if (!user) throw notFound('user_not_found', 'no active user with that id', { owner_id: ownerId });
          owner = user;
        }
        const r = await deps.cases.assign(id, owner, actorOf(c.get('principal')));
        await deps.waitFor(r.position);
        return c.json(await loadView(id));
      },
    )
    .post(
      '/cases/:id/acknowledge',
      describeRoute({ summary: 'Acknowledge a case (idempotent: the first stamp stays)', tags: ['cases'] }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const r = await deps.cases.acknowledge(id, actorOf(c.get('principal')));
        await deps.waitFor(r.position);
        return c.json(await loadView(id));
      },
    )
    .get('/cases/:id/timeline', describeRoute({ summary: 'Chronological timeline of a case', tags: ['cases'] }), read, validate('param', idParam), async (c) => {
      const { id } = c.req.valid('param');
      await loadView(id);
      const rows = await caseTimeline(db, id);
      return c.json({
        items: rows.map((r) => ({ id: String(r.event_position), kind: r.kind, payload: r.payload, actor: r.actor_email ?? r.actor_id, at: new Date(r.at).toISOString() })),
      });
    })
    .get('/cases/:id/comments', describeRoute({ summary: 'Comments of a case', tags: ['cases'] }), read, validate('param', idParam), async (c) => {
      const { id } = c.req.valid('param');
      await loadView(id);
      const rows = await caseComments(db, id);
      return c.json({ items: rows.map(commentView) });
    })
    .post(
      '/cases/:id/comments',
      describeRoute({ summary: 'Comment on a case', tags: ['cases'] }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.strictObject({ body: text(20_000) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const r = await deps.cases.comment(id, c.req.valid('json').body, actorOf(c.get('principal')));
        await deps.waitFor(r.position);
        const created = (await caseComments(db, id)).find((row) => row.id === r.commentId);
        if (!created) throw new Error(`comment ${r.commentId} missing from the read model after projection`);
        return c.json({ ...commentView(created), mentions: { notified: [], unresolved: [], not_notified: [] } }, 201);
      },
    );
}

function commentView(r: Awaited<ReturnType<typeof caseComments>>[number]) {
  return { id: r.id, case_id: r.case_id, body: r.body, author_id: r.author_id, author_email: r.author_email, created_at: new Date(r.created_at).toISOString() };
}
