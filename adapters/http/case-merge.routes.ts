/**
 * Case merge and split (docs/configuration.md "Case merge and split"; issue 50):
 * - `POST /cases/<id>/merge {source_ids, reason}` merges the sources into case `<id>` and
 *   answers `{case, merged}`, `merged` naming the sources this request merged (a source
 *   merged into this case before is not merged again and not named);
 * - `POST /cases/<id>/alerts/<alert_id>/split` opens a new case holding that alert (and
 *   the observables it carries) in the case's team and privacy, answered 201 `{case}`.
 * Both need `manage_cases` in the team of every case named. A case the caller cannot see
 * is 404 `case_not_found`; a merge that would show a source to someone who cannot see it
 * now is 409 `case_merge_widens_access` (domain/cases/merge.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { mergeWidensAccess, type CaseReach } from '../../domain/cases/merge.ts';
import { conflict, notFound } from '../../domain/shared/errors.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import { auditActorOf } from '../commands/audit.ts';
import { nonEmptyText, uuid } from '../shared/shapes.ts';
import { alertAccess, caseRouteGuards } from './case-access.ts';
import { caseSchema } from './case-view.ts';
import { actorOf, caseViews } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/** Most cases one merge request names as sources. */
export const MERGE_MAX_SOURCES = 50;

const mergeAnswer = v.pipe(v.strictObject({ case: caseSchema, merged: v.array(v.string()) }), v.metadata({ ref: 'CaseMerge' }));
const splitAnswer = v.strictObject({ case: caseSchema });

/** Who can see a case row now (domain/cases/merge.ts `CaseReach`). */
const reachOf = (row: CaseRow): CaseReach => ({
  team: row.team,
  private: row.private,
  members: [row.created_by_id, row.owner_id].filter((m): m is string => m !== null),
});

export type CaseMergeRouteDeps = Pick<HttpDeps, 'ackSla' | 'caseAlerts' | 'caseMerge' | 'db' | 'now' | 'permissions' | 'waitFor'>;

export function caseMergeRoutes(deps: CaseMergeRouteDeps) {
  const { db } = deps;
  const { access, manage } = caseRouteGuards(db, deps.permissions);
  const alerts = alertAccess(db, deps.permissions);

  return new Hono<AppEnv>()
    .post(
      '/cases/:id/merge',
      describeRoute({
        summary: `Merge up to ${MERGE_MAX_SOURCES} cases into this one: their alerts, observables and tasks move, their comments, attachments and evidence pins are copied, and each source points at this case`,
        tags: ['cases'],
        responses: { 200: jsonAnswer(mergeAnswer, 'The case after the merge, and the sources this request merged') },
      }),
      manage,
      validate('param', v.object({ id: uuid })),
      requireJson,
      validate(
        'json',
        v.strictObject({
          source_ids: v.pipe(
            v.array(uuid),
            v.minLength(1, 'name at least one case'),
            v.maxLength(MERGE_MAX_SOURCES, `at most ${MERGE_MAX_SOURCES} cases`),
            v.check((ids) => new Set(ids).size === ids.length, 'a case is named twice'),
          ),
          reason: nonEmptyText(2000),
        }),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const { source_ids: sourceIds, reason } = c.req.valid('json');
        const principal = c.get('principal');
        const target = await access.actOn(principal, id, 'manage_cases');
        for (const sourceId of sourceIds) {
          const source = await access.actOn(principal, sourceId, 'manage_cases');
          if (source.merged_into !== id && mergeWidensAccess(reachOf(source), reachOf(target))) {
            throw conflict('case_merge_widens_access', 'the merge would show the case to people who cannot see it now', {
              case_id: sourceId,
            });
          }
        }
        const r = await deps.caseMerge.merge(id, sourceIds, reason, actorOf(principal), auditActorOf(principal));
        await deps.waitFor(r.position);
        const [view] = await caseViews(deps, principal, [await access.visible(principal, id)]);
        return c.json({ case: view, merged: r.merged } as v.InferOutput<typeof mergeAnswer>);
      },
    )
    .post(
      '/cases/:id/alerts/:alert_id/split',
      describeRoute({
        summary: "Split an alert out of the case into a new case of the same team and privacy, with the alert's observables",
        tags: ['cases'],
        responses: { 201: jsonAnswer(splitAnswer, 'The new case') },
      }),
      manage,
      validate('param', v.object({ id: uuid, alert_id: uuid })),
      async (c) => {
        const { id, alert_id: alertId } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const alert = await alerts.actOn(principal, alertId);
        if (alert.case_id !== id) throw notFound('alert_not_in_case', 'the case does not hold this alert', { case_id: id, alert_id: alertId });
        const r = await deps.caseAlerts.escalate(
          alertId,
          id,
          { title: null, severity: null, private: theCase.private, team: theCase.team },
          actorOf(principal),
        );
        await deps.waitFor(r.position);
        const [view] = await caseViews(deps, principal, [await access.visible(principal, r.caseId)]);
        return c.json({ case: view } as v.InferOutput<typeof splitAnswer>, 201);
      },
    );
}
