/**
 * Saved views (docs/configuration.md "Saved views"; issue 50): `POST /views`, `GET /views`,
 * `GET/PUT/DELETE /views/<id>`. A view is a name, the list it belongs to (`cases` or
 * `alerts`) and that list's filters, checked by the list's own schema (list-filters.ts);
 * private to its owner, or shared with one team the owner holds a grant in. Any signed-in
 * person (`read`) keeps views; only the owner changes or deletes one.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Principal } from '../identity/principal.ts';
import { idParam, nonEmptyText } from '../shared/shapes.ts';
import { viewSchema, type ViewReader } from '../views/store.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { alertListFilters, caseListFilters } from './list-filters.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/**
 * The reader of views `principal` is: its user and the teams of its grants.
 *
 * @throws DomainError 403 `forbidden` for a caller acting for no person (a workload or service token): views belong to people.
 */
export function viewReaderOf(principal: Principal): ViewReader {
  if (principal.userId === null) throw new DomainError('forbidden', 403, 'saved views belong to people; this token acts for none', {});
  return { userId: principal.userId, teams: principal.grants.map((grant) => grant.team) };
}

export type ViewRouteDeps = Pick<HttpDeps, 'caseConfig' | 'permissions' | 'views'>;

export function viewRoutes(deps: ViewRouteDeps) {
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const name = nonEmptyText(200);
  const team = v.optional(v.nullable(nonEmptyText(200)), null);
  const body = v.variant('resource', [
    v.strictObject({ name, resource: v.literal('cases'), query: v.strictObject(caseListFilters(deps.caseConfig)), team_id: team }),
    v.strictObject({ name, resource: v.literal('alerts'), query: v.strictObject(alertListFilters), team_id: team }),
  ]);
  type Body = v.InferOutput<typeof body>;
  /** The fields to save, once the caller may share with the team named. */
  const fieldsOf = (reader: ViewReader, given: Body) => {
    if (given.team_id !== null && !reader.teams.includes(null) && !reader.teams.includes(given.team_id)) {
      throw new DomainError('forbidden', 403, `a view is shared only with a team you hold a grant in, not ${given.team_id}`, { team_id: given.team_id });
    }
    const query = Object.fromEntries(Object.entries(given.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    return { name: given.name, resource: given.resource, query, team: given.team_id };
  };
  const viewAnswer = (description: string) => ({ 200: jsonAnswer(viewSchema, description) });

  return new Hono<AppEnv>()
    .post(
      '/views',
      describeRoute({
        summary: 'Save a view of the case list or the alert inbox, private or shared with a team',
        tags: ['views'],
        responses: { 201: jsonAnswer(viewSchema, 'The saved view') },
      }),
      read,
      requireJson,
      validate('json', body),
      async (c) => {
        const reader = viewReaderOf(c.get('principal'));
        return c.json(await deps.views.create(reader, fieldsOf(reader, c.req.valid('json'))), 201);
      },
    )
    .get(
      '/views',
      describeRoute({
        summary: 'My views and those shared with my teams',
        tags: ['views'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(viewSchema) }), 'Own views first, then shared ones, each by name') },
      }),
      read,
      async (c) => c.json({ items: await deps.views.list(viewReaderOf(c.get('principal'))) }),
    )
    .get(
      '/views/:id',
      describeRoute({ summary: 'One view', tags: ['views'], responses: viewAnswer('The view') }),
      read,
      validate('param', idParam),
      async (c) => c.json(await deps.views.find(viewReaderOf(c.get('principal')), c.req.valid('param').id)),
    )
    .put(
      '/views/:id',
      describeRoute({ summary: 'Replace a view (its owner only)', tags: ['views'], responses: viewAnswer('The view as saved') }),
      read,
      validate('param', idParam),
      requireJson,
      validate('json', body),
      async (c) => {
        const reader = viewReaderOf(c.get('principal'));
        return c.json(await deps.views.update(reader, c.req.valid('param').id, fieldsOf(reader, c.req.valid('json'))));
      },
    )
    .delete(
      '/views/:id',
      describeRoute({ summary: 'Delete a view (its owner only)', tags: ['views'], responses: { 204: { description: 'Deleted' } } }),
      read,
      validate('param', idParam),
      async (c) => {
        await deps.views.remove(viewReaderOf(c.get('principal')), c.req.valid('param').id);
        return c.body(null, 204);
      },
    );
}
