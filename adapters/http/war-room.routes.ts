/**
 * The war-room of a case and its presence roster (SPEC.md "Cases":
 * `GET /cases/<id>/war-room`, `GET /cases/<id>/presence`; "Case sub-resources"
 * Presence). The war-room gathers what analysts working the case together look at:
 * recent comments, pinned evidence, runbook runs, the open-task count, who else is
 * viewing, and how often to send a heartbeat. Fetching it counts as a heartbeat, as a
 * WebSocket `presence.ping` does; `GET /presence` only reads.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { recentComments } from '../../projections/cases/cases.queries.ts';
import { listEvidence } from '../../projections/evidence/evidence.queries.ts';
import { listRuns } from '../../projections/runs/runs.queries.ts';
import { openTaskCount } from '../../projections/tasks/tasks.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { caseRouteGuards } from './case-access.ts';
import { commentSchema, commentView } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { evidencePinSchema } from './evidence.routes.ts';
import { jsonAnswer } from './openapi.ts';
import { runSchema, runView } from './run-view.ts';
import { idParam } from '../shared/shapes.ts';
import { validate } from './validation.ts';

/** Items per war-room list: the console pages the full lists through their own routes. */
const recentItems = 20;

/** Only people are present on a case; a workload without an acting user is not. */
const viewerOf = (p: Principal) => (p.userId === null ? null : { user_id: p.userId, email: p.email, name: p.name });

/** Someone viewing a case: who, since when, and their latest heartbeat. */
const viewerSchema = v.strictObject({
  user_id: v.string(),
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  joined_at: v.string(),
  last_seen_at: v.string(),
});

/** The war-room of a case (SPEC.md "Cases"): the case at a glance, its recent activity and who is viewing it. */
const warRoomSchema = v.pipe(
  v.strictObject({
    case_id: v.string(),
    key: v.string(),
    title: v.string(),
    status: v.string(),
    severity: v.string(),
    recent_comments: v.array(commentSchema),
    pinned_evidence: v.array(evidencePinSchema),
    runs: v.array(runSchema),
    open_task_count: v.number(),
    presence: v.array(viewerSchema),
    presence_heartbeat_interval_s: v.number(),
  }),
  v.metadata({ ref: 'WarRoom' }),
);

/** The presence roster of a case and how often a viewer should send a heartbeat. */
const presenceSchema = v.strictObject({ items: v.array(viewerSchema), heartbeat_interval_s: v.number() });

/** What the war-room routes read of the service (adapters/http/deps.ts). */
export type WarRoomRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'presence' | 'presenceHeartbeatSeconds'>;

export function warRoomRoutes(deps: WarRoomRouteDeps) {
  const { db } = deps;
  const { access, read } = caseRouteGuards(db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/war-room',
      describeRoute({
        summary: 'War-room of a case; counts as the caller’s presence heartbeat',
        tags: ['cases'],
        responses: { 200: jsonAnswer(warRoomSchema, 'The war-room, with the latest 20 comments, pins and runs') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.visible(principal, id);
        const viewer = viewerOf(principal);
        if (viewer)
          await deps.presence.beat(
            id,
            { team: theCase.team, private: theCase.private, owner_id: theCase.owner_id, created_by_id: theCase.created_by_id },
            viewer,
          );
        const [comments, pinned, runs, openTasks] = await Promise.all([
          recentComments(db, id, recentItems),
          listEvidence(db, id, recentItems),
          listRuns(db, { caseId: id, limit: recentItems, offset: 0 }, caseScopeOf(principal, deps.permissions)),
          openTaskCount(db, id),
        ]);
        const answer: v.InferOutput<typeof warRoomSchema> = {
          case_id: theCase.id,
          key: theCase.key,
          title: theCase.title,
          status: theCase.status,
          severity: theCase.severity,
          recent_comments: comments.map(commentView),
          pinned_evidence: pinned,
          runs: runs.map(runView),
          open_task_count: openTasks,
          presence: deps.presence.viewers(id),
          presence_heartbeat_interval_s: deps.presenceHeartbeatSeconds,
        };
        return c.json(answer);
      },
    )
    .get(
      '/cases/:id/presence',
      describeRoute({
        summary: 'Who is viewing a case (read-only)',
        tags: ['cases'],
        responses: { 200: jsonAnswer(presenceSchema, 'The viewers, by join time') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const answer: v.InferOutput<typeof presenceSchema> = { items: deps.presence.viewers(id), heartbeat_interval_s: deps.presenceHeartbeatSeconds };
        return c.json(answer);
      },
    );
}
