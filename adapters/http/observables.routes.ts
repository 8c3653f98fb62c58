/**
 * Case observables (SPEC.md "Cases"): `GET/POST /cases/<id>/observables`,
 * `DELETE /cases/<id>/observables/<observable_id>`. POST normalizes the value
 * (adapters/observables/normalize.ts), de-duplicates on it, and answers the observable
 * with `deduplicated` and `cross_case_hits`: other cases the caller may see holding
 * the same (type, normalized value); GET lists each observable with its
 * `cross_case_hits` the same way (SPEC.md "Endpoints": "includes `cross_case_hits`"). The observables of the alerts linked to the case
 * are listed too (`source: "alert"`, one row per normalized value); they follow the
 * alert, so DELETE refuses them with 409 `observable_from_alert`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { conflict, notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import { crossCaseHits, crossCaseHitsOfCase, findObservable, listObservables } from '../../projections/observables/observables.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { normalizeObservable, observableTypes } from '../observables/normalize.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam, uuid } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** An observable of a case, hand-added (`manual`) or from an alert linked to it (`alert`). */
const caseObservableSchema = v.strictObject({
  id: v.string(),
  case_id: v.string(),
  type: v.string(),
  value: v.string(),
  normalized: v.string(),
  source: v.picklist(['manual', 'alert']),
  added_by: v.nullable(v.string()),
  created_at: v.string(),
});

/** Other cases the caller may see holding the same (type, normalized value), newest first, at most 20. */
const crossCaseHitsSchema = v.array(
  v.strictObject({ case_id: v.string(), case_key: v.string(), title: v.string(), status: v.string(), observable_id: v.string() }),
);

/** The answer of GET /cases/<id>/observables: each observable with its cross-case hits. */
const caseObservableListSchema = v.strictObject({ items: v.array(v.strictObject({ ...caseObservableSchema.entries, cross_case_hits: crossCaseHitsSchema })) });

/** The answer of adding an observable: it, whether it was already there, and the other visible cases holding it. */
const addedObservableSchema = v.strictObject({
  ...caseObservableSchema.entries,
  deduplicated: v.boolean(),
  cross_case_hits: crossCaseHitsSchema,
});

type Row = Awaited<ReturnType<typeof listObservables>>[number];
const view = (r: Row): v.InferOutput<typeof caseObservableSchema> => ({
  id: r.id,
  case_id: r.case_id,
  type: r.type,
  value: r.value,
  normalized: r.normalized,
  source: r.source,
  added_by: r.added_by,
  created_at: new Date(r.created_at).toISOString(),
});

/** What the observable routes read of the service (adapters/http/deps.ts). */
export type ObservableRouteDeps = Pick<HttpDeps, 'db' | 'observables' | 'permissions' | 'waitFor'>;

export function observableRoutes(deps: ObservableRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/observables',
      describeRoute({
        summary: 'Observables of a case',
        tags: ['cases'],
        responses: { 200: jsonAnswer(caseObservableListSchema, 'The observables of the case and of its alerts, oldest first, each with its cross-case hits') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await access.visible(principal, id);
        const [rows, hits] = await Promise.all([listObservables(db, id), crossCaseHitsOfCase(db, id, caseScopeOf(principal, deps.permissions))]);
        const hitsOf = (row: Row) =>
          hits
            .filter((hit) => hit.type === row.type && hit.normalized === row.normalized)
            .map(({ case_id, case_key, title, status, observable_id }) => ({ case_id, case_key, title, status, observable_id }));
        return c.json({ items: rows.map((row) => ({ ...view(row), cross_case_hits: hitsOf(row) })) } satisfies v.InferOutput<typeof caseObservableListSchema>);
      },
    )
    .post(
      '/cases/:id/observables',
      describeRoute({
        summary: 'Add an observable (de-duplicated on its normalized value)',
        tags: ['cases'],
        responses: {
          200: jsonAnswer(addedObservableSchema, 'The case already held it: the observable, deduplicated: true'),
          201: jsonAnswer(addedObservableSchema, 'Added: the observable, deduplicated: false'),
        },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate(
        'json',
        v.object({ type: v.picklist(observableTypes, `must be one of ${observableTypes.join(', ')}`), value: v.pipe(v.string(), v.maxLength(2048)) }),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const normalized = normalizeObservable(body.type, body.value);
        if (!normalized.ok) throw new ValidationFailed([{ loc: ['body', 'value'], msg: `${normalized.error}`, type: 'value_error' }]);
        const r = await deps.observables.add(id, { type: body.type, value: body.value.trim(), normalized: normalized.value }, actorOf(principal));
        await deps.waitFor(r.position);
        const row = await findObservable(db, id, r.observableId);
        if (!row) throw new Error(`observable ${r.observableId} missing from the read model after projection`);
        const hits = await crossCaseHits(db, id, row.type, row.normalized, caseScopeOf(principal, deps.permissions));
        const added: v.InferOutput<typeof addedObservableSchema> = { ...view(row), deduplicated: r.deduplicated, cross_case_hits: hits };
        return c.json(added, r.deduplicated ? 200 : 201);
      },
    )
    .delete(
      '/cases/:id/observables/:observable_id',
      describeRoute({ summary: 'Remove an observable from a case', tags: ['cases'], responses: { 204: { description: 'Removed' } } }),
      manage,
      validate('param', v.object({ id: uuid, observable_id: uuid })),
      async (c) => {
        const { id, observable_id: observableId } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const row = await findObservable(db, id, observableId);
        if (!row) throw notFound('observable_not_found', 'observable not found', { observable_id: observableId });
        if (row.source === 'alert') {
          throw conflict('observable_from_alert', 'this observable comes from an alert of the case; it leaves the case when the alert is unlinked', {
            observable_id: observableId,
          });
        }
        const r = await deps.observables.remove(id, { id: observableId, type: row.type, normalized: row.normalized }, actorOf(principal));
        await deps.waitFor(r.position);
        return c.body(null, 204);
      },
    );
}
