/**
 * Run routes (SPEC.md "Runbooks and runs"): `GET /runs`, `GET /runs/chain/verify`,
 * `GET /runs/<id>` (steps, action log, chain badge), `GET /runs/<id>/log`,
 * `GET /cases/<id>/runs`, `POST /cases/<id>/runbooks/<slug>/run`, the gate decisions
 * `POST /runs/<id>/approve|deny`, `POST /runs/<id>/cancel`, and the approver queue
 * `GET /approvals?status=pending`.
 *
 * Deciding a gate needs `approve_runbooks` in the run's case team (a realm grant for a
 * run without a case), and one of the gate's roles among the caller's grants covering
 * that team and holding `approve_runbooks`: role names match exactly, so a gate for
 * `approver` is not decided by an `admin` grant unless the gate lists `admin` too
 * (gate-decision.ts, shared with chat; the rule of identity/gate-approval.ts).
 */
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { chainHashOfText, chainVerdictSchema } from '../../domain/shared/hash-chain.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { decideGateAs, runTeam, visibleRun } from './gate-decision.ts';
import { hasPermission } from '../identity/permissions.ts';
import { listRuns, pageRuns, pendingApprovals, runActionLog, runGates, runSteps } from '../../projections/runs/runs.queries.ts';
import { nativeSha256Hex, verifyChainTable } from '../../projections/chains/chain-table.ts';
import { checkPermission, requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { caseAccess } from './case-access.ts';
import type { Principal } from '../identity/principal.ts';
import type { HttpDeps } from './deps.ts';
import { paging, queryFlag, uuid, jsonRecord } from '../shared/shapes.ts';
import { listPageAnswer, listPageSchema } from './list-page.ts';
import { requireJson, validate } from './validation.ts';
import { jsonAnswer } from './openapi.ts';
import {
  actionLogEntrySchema,
  approvalSchema,
  approvalView,
  type chainBadgeSchema,
  gateView,
  logView,
  runDetailSchema,
  runSchema,
  runView,
  runWithGatesSchema,
  stepView,
} from './run-view.ts';

const STEP_ID = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a step id'));
const decisionBody = v.object({
  step_id: STEP_ID,
  note: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4000, 'must be at most 4000 characters'))), null),
});

/** A list of runs, newest first. */
const runList = v.strictObject({ items: v.array(runSchema) });
/** A page of `GET /runs`: `total` and `total_relation` only with `include_total=true`. */
const runPage = listPageSchema(runSchema);

type LogRow = Awaited<ReturnType<typeof runActionLog>>[number];

/** What the run routes read of the service (adapters/http/deps.ts). */
export type RunRouteDeps = Pick<HttpDeps, 'caseListTotalCap' | 'db' | 'permissions' | 'runbooks' | 'runs' | 'waitFor' | 'now'>;

/** A draft's size bound, as a save's (adapters/http/runbooks.routes.ts). */
const MAX_DRAFT_CHARS = 512 * 1024;

export function runRoutes(deps: RunRouteDeps) {
  const { db } = deps;
  const read = requirePermission('read', 'svc:runs:read', deps.permissions);
  const cases = caseAccess(db, deps.permissions);

  /** The run's rows each hash correctly and link to the row before them in the global chain. */
  const chainBadge = async (rows: LogRow[]): Promise<v.InferOutput<typeof chainBadgeSchema>> => {
    for (const r of rows) {
      if (chainHashOfText(r.prev_hash, r.text, nativeSha256Hex) !== r.hash)
        return { valid: false, rows: rows.length, first_broken_index: Number(r.chain_index) };
      const index = Number(r.chain_index);
      if (index > 0) {
        const previous = await db
          .selectFrom('action_log')
          .select('hash')
          .where('chain_index', '=', index - 1)
          .executeTakeFirst();
        if (previous?.hash !== r.prev_hash) return { valid: false, rows: rows.length, first_broken_index: index };
      }
    }
    return { valid: true, rows: rows.length, first_broken_index: null };
  };

  const loadRun = (principal: Principal, id: string) => visibleRun(deps, principal, id);

  const decide =
    (decision: 'approved' | 'denied') => async (c: Context<AppEnv, string, { out: { param: { id: string }; json: v.InferOutput<typeof decisionBody> } }>) => {
      const principal = c.get('principal');
      const runId = c.req.valid('param').id;
      const body = c.req.valid('json');
      await decideGateAs(deps, principal, { runId, stepId: body.step_id, decision, note: body.note });
      const answer: v.InferOutput<typeof runWithGatesSchema> = {
        ...runView(await loadRun(principal, runId)),
        gates: (await runGates(db, runId)).map(gateView),
      };
      return c.json(answer);
    };

  return new Hono<AppEnv>()
    .get(
      '/runs/chain/verify',
      describeRoute({
        summary: 'Verify the whole action-log hash chain',
        tags: ['runs'],
        responses: { 200: jsonAnswer(chainVerdictSchema, 'The verdict over the whole chain') },
      }),
      read,
      async (c) => c.json(await verifyChainTable(db, 'action_log')),
    )
    .get(
      '/runs',
      describeRoute({ summary: 'List runs', tags: ['runs'], responses: { 200: jsonAnswer(runPage, 'A page of the visible runs, newest first') } }),
      read,
      validate(
        'query',
        v.object({
          status: v.optional(v.string()),
          case_id: v.optional(uuid),
          runbook_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
          include_total: queryFlag,
          ...paging,
        }),
      ),
      async (c) => {
        const q = c.req.valid('query');
        const scope = caseScopeOf(c.get('principal'), deps.permissions);
        const filters = { caseId: q.case_id, runbookId: q.runbook_id, status: q.status, limit: q.limit, offset: q.offset };
        const page = await pageRuns(db, filters, scope, q.include_total ? deps.caseListTotalCap : null);
        return c.json(listPageAnswer(page, page.items.map(runView), q));
      },
    )
    .get(
      '/runs/:id',
      describeRoute({
        summary: 'Run detail: steps, action log, chain badge',
        tags: ['runs'],
        responses: { 200: jsonAnswer(runDetailSchema, 'The run with its gates, steps, action log and chain badge') },
      }),
      read,
      validate('param', v.object({ id: uuid })),
      async (c) => {
        const run = await loadRun(c.get('principal'), c.req.valid('param').id);
        const [steps, log] = await Promise.all([runSteps(db, run.id), runActionLog(db, run.id)]);
        const answer: v.InferOutput<typeof runDetailSchema> = {
          ...runView(run),
          gates: (await runGates(db, run.id)).map(gateView),
          steps: steps.map(stepView),
          action_log: log.map(logView),
          chain: await chainBadge(log),
        };
        return c.json(answer);
      },
    )
    .post(
      '/runs/:id/approve',
      describeRoute({
        summary: 'Approve the open gate of a run',
        tags: ['runs'],
        responses: { 200: jsonAnswer(runWithGatesSchema, 'The run with its gates after the approval') },
      }),
      requirePermission('approve_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', v.object({ id: uuid })),
      requireJson,
      validate('json', decisionBody),
      decide('approved'),
    )
    .post(
      '/runs/:id/deny',
      describeRoute({
        summary: 'Deny the open gate of a run (the run ends denied)',
        tags: ['runs'],
        responses: { 200: jsonAnswer(runWithGatesSchema, 'The run with its gates after the denial') },
      }),
      requirePermission('approve_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', v.object({ id: uuid })),
      requireJson,
      validate('json', decisionBody),
      decide('denied'),
    )
    .post(
      '/runs/:id/cancel',
      describeRoute({
        summary: 'Cancel a run that has not finished',
        tags: ['runs'],
        responses: { 200: jsonAnswer(runSchema, 'The run after the cancellation') },
      }),
      requirePermission('run_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', v.object({ id: uuid })),
      async (c) => {
        const principal = c.get('principal');
        const run = await loadRun(principal, c.req.valid('param').id);
        const team = await runTeam(deps, principal, run.case_id);
        if (!hasPermission(principal, 'run_runbooks', deps.permissions, team)) {
          throw new DomainError('forbidden', 403, "permission run_runbooks required in the run's team", { permission: 'run_runbooks', team });
        }
        await deps.waitFor(await deps.runs.cancel({ runId: run.id, by: principal.email }));
        return c.json(runView(await loadRun(principal, run.id)));
      },
    )
    .get(
      '/approvals',
      describeRoute({
        summary: 'Approver queue: pending gates of visible runs',
        tags: ['runs'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(approvalSchema) }), 'Pending gates, soonest deadline first') },
      }),
      read,
      validate('query', v.object({ status: v.optional(v.picklist(['pending'], 'must be pending'), 'pending'), limit: paging.limit })),
      async (c) => {
        const scope = caseScopeOf(c.get('principal'), deps.permissions);
        const rows = await pendingApprovals(db, scope, c.req.valid('query').limit, deps.now());
        return c.json({ items: rows.map(approvalView) });
      },
    )
    .get(
      '/runs/:id/log',
      describeRoute({
        summary: 'Action log of a run',
        tags: ['runs'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(actionLogEntrySchema) }), "The run's action-log rows in chain order") },
      }),
      read,
      validate('param', v.object({ id: uuid })),
      async (c) => {
        const run = await loadRun(c.get('principal'), c.req.valid('param').id);
        return c.json({ items: (await runActionLog(db, run.id)).map(logView) });
      },
    )
    .get(
      '/cases/:id/runs',
      describeRoute({
        summary: 'Runs of a case',
        tags: ['runs'],
        responses: { 200: jsonAnswer(runList, "The case's visible runs, newest first (at most 200)") },
      }),
      read,
      validate('param', v.object({ id: uuid })),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await cases.visible(principal, id);
        return c.json({ items: (await listRuns(db, { caseId: id, limit: 200, offset: 0 }, caseScopeOf(principal, deps.permissions))).map(runView) });
      },
    )
    .post(
      '/cases/:id/runbooks/:slug/run',
      describeRoute({
        summary: 'Queue a manual run of a runbook on a case',
        description:
          'With `yaml_text` (ours), a dry run of that draft instead of the stored runbook: the editor tries a runbook before it is saved. A draft needs `dry_run: true` and `manage_runbooks`, and is checked as a save under the slug would be.',
        tags: ['runs'],
        responses: { 202: jsonAnswer(runSchema, 'The queued run') },
      }),
      requirePermission('run_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', v.object({ id: uuid, slug: v.pipe(v.string(), v.regex(/^[a-z0-9-]{3,64}$/, 'must be a runbook slug')) })),
      requireJson,
      validate(
        'json',
        v.pipe(
          v.object({
            dry_run: v.optional(v.boolean(), false),
            inputs: v.optional(jsonRecord(v.unknown()), {}),
            yaml_text: v.optional(v.pipe(v.string(), v.maxLength(MAX_DRAFT_CHARS))),
          }),
          v.forward(
            v.check((body) => body.yaml_text === undefined || body.dry_run, 'a draft (yaml_text) runs only as a dry run: set dry_run to true'),
            ['dry_run'],
          ),
        ),
      ),
      async (c) => {
        const { id, slug } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        // A draft is a runbook its author has not saved: trying one is authoring, so it takes
        // the save's permission as well as the run's.
        if (body.yaml_text !== undefined) checkPermission(principal, 'manage_runbooks', 'svc:runbooks:write', deps.permissions, null);
        const draft = body.yaml_text === undefined ? undefined : deps.runbooks.draft(slug, body.yaml_text);
        await cases.actOn(principal, id, 'run_runbooks');
        const queued = await deps.runs.queueManual({
          slug,
          draft,
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
