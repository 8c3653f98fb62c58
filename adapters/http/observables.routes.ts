/**
 * Case observables (SPEC.md "Cases"): `GET/POST /cases/<id>/observables`,
 * `DELETE /cases/<id>/observables/<observable_id>`. POST normalizes the value
 * (adapters/observables/normalize.ts), de-duplicates on it, and answers the observable
 * with `deduplicated` and `cross_case_hits`: other cases the caller may see holding
 * the same (type, normalized value). The observables of the alerts linked to the case
 * are listed too (`source: "alert"`, one row per normalized value); they follow the
 * alert, so DELETE refuses them with 409 `observable_from_alert`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { conflict, notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import { crossCaseHits, findObservable, listObservables } from '../../projections/observables/observables.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { normalizeObservable, observableTypes } from '../observables/normalize.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { idParam, iso, uuid } from './shapes.ts';
import { requireJson, validate } from './validation.ts';

type Row = Awaited<ReturnType<typeof listObservables>>[number];
const view = (r: Row) => ({ id: r.id, case_id: r.case_id, type: r.type, value: r.value, normalized: r.normalized, source: r.source, added_by: r.added_by, created_at: iso(r.created_at) });

export function observableRoutes(deps: HttpDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  return new Hono<AppEnv>()
    .get('/cases/:id/observables', describeRoute({ summary: 'Observables of a case', tags: ['cases'] }), read, validate('param', idParam), async (c) => {
      const { id } = c.req.valid('param');
      await access.visible(c.get('principal'), id);
      return c.json({ items: (await listObservables(db, id)).map(view) });
    })
    .post(
      '/cases/:id/observables',
      describeRoute({ summary: 'Add an observable (de-duplicated on its normalized value)', tags: ['cases'] }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ type: v.picklist(observableTypes, `must be one of ${observableTypes.join(', ')}`), value: v.pipe(v.string(), v.maxLength(2048)) })),
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
        return c.json({ ...view(row), deduplicated: r.deduplicated, cross_case_hits: hits }, r.deduplicated ? 200 : 201);
      },
    )
    .delete(
      '/cases/:id/observables/:observable_id',
      describeRoute({ summary: 'Remove an observable from a case', tags: ['cases'] }),
      manage,
      validate('param', v.object({ id: uuid, observable_id: uuid })),
      async (c) => {
        const { id, observable_id: observableId } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const row = await findObservable(db, id, observableId);
        if (!row) throw notFound('observable_not_found', 'observable not found', { observable_id: observableId });
        if (row.source === 'alert') {
          throw conflict('observable_from_alert', 'this observable comes from an alert of the case; it leaves the case when the alert is unlinked', { observable_id: observableId });
        }
        const r = await deps.observables.remove(id, { id: observableId, type: row.type, normalized: row.normalized }, actorOf(principal));
        await deps.waitFor(r.position);
        return c.body(null, 204);
      },
    );
}
