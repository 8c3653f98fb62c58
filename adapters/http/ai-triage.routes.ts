/**
 * Advisory AI triage of a case (SPEC.md "Cases"):
 *
 * - `GET /cases/<id>/ai-triage` (read): the stored record with the reader's `my_feedback`,
 *   or null before any triage.
 * - `POST /cases/<id>/ai-triage {note?}` (`manage_cases` in the case's team): runs one
 *   triage now and answers the recorded record. A refusal or failure is 422
 *   `{detail: {code, message}, code, params}` (SPEC.md "Errors" 4, in the error shape),
 *   audited by the call path, and changes nothing on the case.
 * - `POST /cases/<id>/ai-triage/feedback {analyst_verdict, note?}` (`manage_cases`): the
 *   caller's judgement of the current verdict, one row per analyst per case; 409
 *   `ai_triage_missing` before any verdict.
 *
 * An invisible case is 404 `case_not_found`, as everywhere.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { triageVerdicts } from '../../domain/ai/triage.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { myTriageFeedback } from '../../projections/ai/triage.queries.ts';
import { TRIAGE_NOTE_MAX } from '../ai/case-triage.ts';
import { auditActorOf } from '../commands/audit.ts';
import type { Principal } from '../identity/principal.ts';
import { caseRouteGuards } from './case-access.ts';
import { aiTriageSchema, aiTriageView } from './case-view.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBody } from './errors.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

const optionalNote = (max: number) => v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(max, `must be at most ${max} characters`))), null);

const triageBody = v.object({ note: optionalNote(TRIAGE_NOTE_MAX) });
const feedbackBody = v.object({
  analyst_verdict: v.picklist(triageVerdicts, `must be one of ${triageVerdicts.join(', ')}`),
  note: optionalNote(TRIAGE_NOTE_MAX),
});

/** What the AI triage routes read of the service (adapters/http/deps.ts). */
export type AiTriageRouteDeps = Pick<HttpDeps, 'caseTriage' | 'cases' | 'db' | 'permissions' | 'waitFor'>;

export function aiTriageRoutes(deps: AiTriageRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  /** The stored record of a visible case with `principal`'s feedback, after the projections caught up. */
  const recordFor = async (principal: Principal, id: string) => {
    const row = await access.visible(principal, id);
    const mine = principal.userId === null ? undefined : (await myTriageFeedback(db, principal.userId, [id])).get(id);
    return aiTriageView(row.ai_triage, mine ?? null);
  };

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/ai-triage',
      describeRoute({
        summary: 'The stored AI triage record of a case, or null',
        tags: ['cases', 'ai'],
        responses: { 200: jsonAnswer(v.nullable(aiTriageSchema), 'The record with my_feedback, or null before any triage') },
      }),
      read,
      validate('param', idParam),
      async (c) => c.json(await recordFor(c.get('principal'), c.req.valid('param').id)),
    )
    .post(
      '/cases/:id/ai-triage',
      describeRoute({
        summary: 'Run one advisory AI triage of the case now',
        description:
          'Advice only: records a verdict on the case and an ai_triage timeline event; never changes status, severity or owner. A refusal by the AI gate, or a provider failure or invalid answer, is 422 with detail {code, message} and the same code.',
        tags: ['cases', 'ai'],
        responses: { 200: jsonAnswer(aiTriageSchema, 'The recorded triage') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', triageBody),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const row = await access.actOn(principal, id, 'manage_cases');
        const result = await deps.caseTriage.run(row, auditActorOf(principal), actorOf(principal), c.req.valid('json').note);
        await deps.waitFor(result.position);
        if (!result.ok) return c.json(errorBody({ code: result.refusal.code, message: result.refusal.message }, result.refusal.code), 422);
        return c.json(await recordFor(principal, id));
      },
    )
    .post(
      '/cases/:id/ai-triage/feedback',
      describeRoute({
        summary: "Give my judgement of the case's AI verdict (one per analyst; a repeat replaces it)",
        tags: ['cases', 'ai'],
        responses: { 200: jsonAnswer(aiTriageSchema, 'The record with my_feedback') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', feedbackBody),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const body = c.req.valid('json');
        if (principal.userId === null) throw new DomainError('forbidden', 403, 'feedback on an AI verdict is given by a person');
        const r = await deps.cases.aiTriageFeedback(id, { userId: principal.userId, email: principal.email }, body.analyst_verdict, body.note);
        await deps.waitFor(r.position);
        return c.json(await recordFor(principal, id));
      },
    );
}
