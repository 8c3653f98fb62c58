/**
 * AI authoring, proposals only (SPEC.md "AI authoring (proposals only)"):
 *
 * - `POST /ai/runbook-drafts {description, base_yaml?}` (`manage_runbooks` from a realm
 *   grant, as saving a runbook): 200 `{proposal, refusal, audit}`. A draft naming an
 *   unknown action, or failing validation, is 200 with `refusal` `{code, message,
 *   details}` and `proposal: null`.
 * - `POST /ai/runs/<run_id>/explanation` (`read`, the run visible as its case is): 200
 *   `{explanation, audit}`, built from the action log only and never stored.
 *
 * The AI path's refusals and failures are 422 `{detail: {code, message}, code, params}`
 * (SPEC.md "Errors" 4, in the error shape). `audit` is the call's one audit row `{id,
 * action}`, readable through `GET /audit` when the answer is sent. Neither route creates or
 * changes a runbook, run, approval or response effect.
 */
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import type { AiRefusal } from '../../domain/ai/gate.ts';
import { DRAFT_LIMITS } from '../../domain/ai/runbook-draft.ts';
import { explanationSchema } from '../../domain/ai/run-explanation.ts';
import type { ActionLogRow } from '../../domain/runs/events.ts';
import { runActionLog } from '../../projections/runs/runs.queries.ts';
import { auditActorOf } from '../commands/audit.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBody } from './errors.ts';
import { runTeam, visibleRun } from './gate-decision.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

const auditRefSchema = v.strictObject({ id: v.string(), action: v.picklist(['ai.invocation', 'ai.refusal']) });

const draftBody = v.object({
  description: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(DRAFT_LIMITS.descriptionChars, `must be at most ${DRAFT_LIMITS.descriptionChars} characters`),
  ),
  base_yaml: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(DRAFT_LIMITS.yamlChars, `must be at most ${DRAFT_LIMITS.yamlChars} characters`))), null),
});

const proposalSchema = v.strictObject({
  slug: v.string(),
  name: v.string(),
  yaml_text: v.string(),
  summary: v.string(),
  notes: v.array(v.string()),
  actions_used: v.array(v.string()),
  approval_steps: v.array(v.string()),
  diff: v.string(),
});
const draftRefusalSchema = v.strictObject({
  code: v.picklist(['ai_draft_unknown_action', 'ai_draft_invalid_runbook']),
  message: v.string(),
  details: v.union([
    v.strictObject({ unknown_actions: v.array(v.string()) }),
    v.strictObject({ errors: v.array(v.strictObject({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string() })) }),
  ]),
});
const draftAnswerSchema = v.strictObject({ proposal: v.nullable(proposalSchema), refusal: v.nullable(draftRefusalSchema), audit: auditRefSchema });
const explanationAnswerSchema = v.strictObject({ explanation: explanationSchema, audit: auditRefSchema });

/** Said on both routes; /openapi.json declares every 422 as ValidationError or ErrorBody. */
const REFUSALS_422 = 'A refusal by the AI gate, or a provider failure or out-of-shape answer, is 422 with detail {code, message} and the same code.';

/** What the AI authoring routes read of the service (adapters/http/deps.ts). */
export type AiAuthoringRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'runbookDrafting' | 'runExplainer' | 'waitFor'>;

/** The 422 of an AI refusal (SPEC.md "AI authoring": `{detail: {code, message}}`). */
const refused = (c: Context<AppEnv>, refusal: AiRefusal) => c.json(errorBody({ code: refusal.code, message: refusal.message }, refusal.code), 422);

export function aiAuthoringRoutes(deps: AiAuthoringRouteDeps) {
  const read = requirePermission('read', 'svc:runs:read', deps.permissions);
  // Runbooks are install-wide, so drafting one takes the realm grant saving one takes.
  const manageRunbooks = requirePermission('manage_runbooks', 'svc:runbooks:write', deps.permissions, null);

  return new Hono<AppEnv>()
    .post(
      '/ai/runbook-drafts',
      describeRoute({
        summary: 'Draft a runbook with AI (a proposal, never saved)',
        description: `The prompt carries only the description and the action names. State-changing steps get approval blocks and the draft is disabled; the proposal is validated like POST /runbooks/validate and diffed against base_yaml. ${REFUSALS_422}`,
        tags: ['runbooks', 'ai'],
        responses: { 200: jsonAnswer(draftAnswerSchema, 'A proposal, or the draft’s own refusal, with the call’s audit row') },
      }),
      manageRunbooks,
      requireJson,
      validate('json', draftBody),
      async (c) => {
        const body = c.req.valid('json');
        const result = await deps.runbookDrafting.draft(body.description, body.base_yaml, auditActorOf(c.get('principal')));
        await deps.waitFor(result.position);
        if (!result.ok) return refused(c, result.refusal);
        return c.json({ proposal: result.proposal, refusal: result.refusal, audit: result.audit });
      },
    )
    .post(
      '/ai/runs/:id/explanation',
      describeRoute({
        summary: 'Explain a run with AI, from its action log only (never stored)',
        description: REFUSALS_422,
        tags: ['runs', 'ai'],
        responses: { 200: jsonAnswer(explanationAnswerSchema, 'The explanation, each step flagged in_log, with the call’s audit row') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const principal = c.get('principal');
        const run = await visibleRun(deps, principal, c.req.valid('param').id);
        const team = await runTeam(deps, principal, run.case_id);
        // The projector stores rows of this shape only (domain/audit/chain-rows.ts).
        const log = (await runActionLog(deps.db, run.id)).map((r) => {
          const { run_id: _, ...row } = r.row as ActionLogRow;
          return row;
        });
        const result = await deps.runExplainer.explain(
          { id: run.id, runbook_id: run.runbook_id, status: run.status, trigger_type: run.trigger_type },
          log,
          auditActorOf(principal),
          team,
        );
        await deps.waitFor(result.position);
        if (!result.ok) return refused(c, result.refusal);
        return c.json({ explanation: result.explanation, audit: result.audit });
      },
    );
}
