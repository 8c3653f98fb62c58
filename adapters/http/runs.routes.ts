/**
 * Run routes (SPEC.md "Runbooks and runs"): `GET /runs`, `GET /runs/chain/verify`,
 * `GET /runs/<id>` (steps, action log, chain badge), `GET /runs/<id>/log`,
 * `GET /cases/<id>/runs`, `POST /cases/<id>/runbooks/<slug>/run`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { chainHash } from '../../domain/runs/hash-chain.ts';
import { notFound } from '../../domain/shared/errors.ts';
import { findRun, listRuns, runActionLog, runSteps, verifyActionLogChain } from '../../projections/runs/runs.queries.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { caseAccess } from './case-access.ts';
import type { Principal } from '../identity/principal.ts';
import type { HttpDeps } from './deps.ts';
import { iso, paging, uuid } from './shapes.ts';
import { requireJson, validate } from './validation.ts';


type RunRow = NonNullable<Awaited<ReturnType<typeof findRun>>>;
/** A run as the run routes and the war-room show it. */
export const runView = (r: RunRow) => ({
  id: r.id,
  runbook_id: r.runbook_id,
  runbook_version: r.runbook_version,
  case_id: r.case_id,
  status: r.status,
  trigger_type: r.trigger_type,
  dry_run: r.dry_run,
  requested_by: r.requested_by,
  error: r.error,
  queued_at: iso(r.queued_at),
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

type LogRow = Awaited<ReturnType<typeof runActionLog>>[number];
const logView = (r: LogRow) => ({ index: Number(r.chain_index), ...r.row, prev_hash: r.prev_hash, hash: r.hash });

export function runRoutes(deps: HttpDeps) {
  const { db } = deps;
  const read = requirePermission('read', 'svc:runs:read', deps.permissions);
  const cases = caseAccess(db, deps.permissions);

  /** The run's rows each hash correctly and link to the row before them in the global chain. */
  const chainBadge = async (rows: LogRow[]) => {
    for (const r of rows) {
      if (chainHash(r.prev_hash, r.row) !== r.hash) return { valid: false, rows: rows.length, first_broken_index: Number(r.chain_index) };
      const index = Number(r.chain_index);
      if (index > 0) {
        const previous = await db.selectFrom('action_log').select('hash').where('chain_index', '=', index - 1).executeTakeFirst();
        if (previous?.hash !== r.prev_hash) return { valid: false, rows: rows.length, first_broken_index: index };
      }
    }
    return { valid: true, rows: rows.length, first_broken_index: null };
  };

  const loadRun = async (principal: Principal, id: string) => {
    const run = await findRun(db, id, caseScopeOf(principal, deps.permissions));
    if (!run) throw notFound('run_not_found', 'run not found', { run_id: id });
    return run;
  };

  return new Hono<AppEnv>()
    .get('/runs/chain/verify', describeRoute({ summary: 'Verify the whole action-log hash chain', tags: ['runs'] }), read, async (c) =>
      c.json(await verifyActionLogChain(db)),
    )
    .get(
      '/runs',
      describeRoute({ summary: 'List runs', tags: ['runs'] }),
      read,
      validate('query', v.object({ status: v.optional(v.string()), case_id: v.optional(uuid), ...paging })),
      async (c) => {
        const q = c.req.valid('query');
        const scope = caseScopeOf(c.get('principal'), deps.permissions);
        const rows = await listRuns(db, { caseId: q.case_id, status: q.status, limit: q.limit, offset: q.offset }, scope);
        return c.json({ items: rows.map(runView) });
      },
    )
    .get('/runs/:id', describeRoute({ summary: 'Run detail: steps, action log, chain badge', tags: ['runs'] }), read, validate('param', v.object({ id: uuid })), async (c) => {
      const run = await loadRun(c.get('principal'), c.req.valid('param').id);
      const [steps, log] = await Promise.all([runSteps(db, run.id), runActionLog(db, run.id)]);
      return c.json({
        ...runView(run),
        steps: steps.map((s) => ({ id: s.step_id, status: s.status, attempt: s.attempt, output: s.output, error: s.error, started_at: iso(s.started_at), finished_at: iso(s.finished_at) })),
        action_log: log.map(logView),
        chain: await chainBadge(log),
      });
    })
    .get('/runs/:id/log', describeRoute({ summary: 'Action log of a run', tags: ['runs'] }), read, validate('param', v.object({ id: uuid })), async (c) => {
      const run = await loadRun(c.get('principal'), c.req.valid('param').id);
      return c.json({ items: (await runActionLog(db, run.id)).map(logView) });
    })
    .get('/cases/:id/runs', describeRoute({ summary: 'Runs of a case', tags: ['runs'] }), read, validate('param', v.object({ id: uuid })), async (c) => {
      const { id } = c.req.valid('param');
      const principal = c.get('principal');
      await cases.visible(principal, id);
      return c.json({ items: (await listRuns(db, { caseId: id, limit: 200, offset: 0 }, caseScopeOf(principal, deps.permissions))).map(runView) });
    })
    .post(
      '/cases/:id/runbooks/:slug/run',
      describeRoute({ summary: 'Queue a manual run of a runbook on a case', tags: ['runs'] }),
      requirePermission('run_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', v.object({ id: uuid, slug: v.pipe(v.string(), v.regex(/^[a-z0-9-]{3,64}$/, 'must be a runbook slug')) })),
      requireJson,
      validate('json', v.strictObject({ dry_run: v.optional(v.boolean(), false), inputs: v.optional(v.record(v.string(), v.unknown()), {}) })),
      async (c) => {
        const { id, slug } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        await cases.actOn(principal, id, 'run_runbooks');
        const queued = await deps.runs.queueManual({
          slug,
          caseId: id,
          caseTrigger: { case_id: id, requested_by: principal.email },
          inputs: body.inputs,
          dryRun: body.dry_run,
          requestedBy: principal.email,
        });
        await deps.waitFor(queued.position);
        return c.json(runView(await loadRun(principal, queued.runId)), 202);
      },
    );
}
