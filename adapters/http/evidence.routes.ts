/**
 * Evidence pins (SPEC.md "Cases": `GET, POST /cases/<case_id>/evidence`; "Case
 * sub-resources": Evidence pin). POST `{kind, ref_id?, url?, note}` (`manage_cases` in
 * the case's team) pins a timeline item, observable, attachment or action-log row of
 * this case by `ref_id`, or a `link` by `url`; the note is required. GET lists the pins
 * newest first, each with a `ref` summary of what it references
 * (projections/evidence/evidence.queries.ts). An invisible case is 404 `case_not_found`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { EVIDENCE_NOTE_MAX, evidenceKinds, evidenceShapeIssues, evidenceUrl } from '../../domain/cases/evidence.ts';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { findEvidence, listEvidence } from '../../projections/evidence/evidence.queries.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** A timeline id or action-log index may come as a JSON number; refs are kept as text. */
const refId = v.union(
  [v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)), v.pipe(v.number(), v.integer(), v.minValue(0), v.transform(String))],
  'must be an id (string) or an index (non-negative integer)',
);

const pinBody = v.object({
  kind: v.picklist(evidenceKinds, `must be one of ${evidenceKinds.join(', ')}`),
  ref_id: v.optional(refId),
  url: v.optional(v.pipe(v.string(), v.trim())),
  note: v.pipe(
    v.string('is required'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(EVIDENCE_NOTE_MAX, `must be at most ${EVIDENCE_NOTE_MAX} characters`),
  ),
});

/** An evidence pin (SPEC.md "Case sub-resources") with `ref`, the summary of what it references (null for a link or a missing item). */
export const evidencePinSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    case_id: v.string(),
    kind: v.string(),
    ref_id: v.nullable(v.string()),
    url: v.nullable(v.string()),
    note: v.string(),
    pinned_by: v.nullable(v.string()),
    pinned_at: v.string(),
    ref: v.nullable(
      v.union([
        v.strictObject({ kind: v.string(), at: v.string(), actor: v.nullable(v.string()) }),
        v.strictObject({ type: v.string(), value: v.string(), removed: v.boolean() }),
        v.strictObject({ filename: v.string(), content_type: v.string(), size: v.number(), sha256: v.string() }),
        v.strictObject({
          run_id: v.string(),
          step_id: v.string(),
          action: v.nullable(v.string()),
          status: v.nullable(v.string()),
          finished_at: v.nullable(v.string()),
        }),
      ]),
    ),
  }),
  v.metadata({ ref: 'EvidencePin' }),
);
export type EvidencePin = v.InferOutput<typeof evidencePinSchema>;

/** What the evidence routes read of the service (adapters/http/deps.ts). */
export type EvidenceRouteDeps = Pick<HttpDeps, 'caseFiles' | 'db' | 'permissions' | 'waitFor'>;

export function evidenceRoutes(deps: EvidenceRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/evidence',
      describeRoute({
        summary: 'Evidence pins of a case, newest first',
        tags: ['cases'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(evidencePinSchema) }), 'The pins, newest first (at most 200)') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const items: EvidencePin[] = await listEvidence(db, id);
        return c.json({ items });
      },
    )
    .post(
      '/cases/:id/evidence',
      describeRoute({
        summary: 'Pin a timeline item, observable, attachment, action-log row or link, with a required note',
        tags: ['cases'],
        responses: { 201: jsonAnswer(evidencePinSchema, 'The new pin') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', pinBody),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const issues = evidenceShapeIssues(body);
        if (issues.length > 0) throw new ValidationFailed(issues);
        const url = body.url === undefined ? null : evidenceUrl(body.url);
        const r = await deps.caseFiles.pin(id, { kind: body.kind, refId: body.ref_id ?? null, url, note: body.note }, actorOf(principal));
        await deps.waitFor(r.position);
        const pin: EvidencePin | undefined = await findEvidence(db, id, r.pinId);
        if (!pin) throw new Error(`evidence pin ${r.pinId} missing from the read model after projection`);
        return c.json(pin, 201);
      },
    );
}
