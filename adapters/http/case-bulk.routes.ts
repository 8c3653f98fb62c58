/**
 * `POST /cases/bulk` (docs/configuration.md "Bulk operations"; issue 50): one operation on up
 * to 500 cases. Each id is checked as its single request would be (an unknown or invisible
 * case is `case_not_found`, one outside the caller's `manage_cases` teams `forbidden`) and
 * fails alone; the rest are decided and appended 50 cases a transaction, each case with
 * exactly the events its single request gives. The answer lists every id in the order
 * given. `Idempotency-Key` replays the first answer (idempotency-key.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { bulkCaseCommand, type CaseBulkOperation } from '../../domain/cases/bulk.ts';
import type { CaseCommand } from '../../domain/cases/commands.ts';
import type { CaseState } from '../../domain/cases/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { nonEmptyText, uuid } from '../shared/shapes.ts';
import { assignableUser } from './assignee.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { onceByIdempotencyKey } from './idempotency-key.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/** Most ids one request may name. */
export const BULK_MAX_IDS = 500;
/** Cases decided and appended in one transaction, so 500 ids never hold one open. */
export const BULK_BATCH = 50;

/** `{results: [{id, ok, code?, message?, case_id?}]}`, in the order of the request's ids; `case_id` where an alert was escalated to. */
export const bulkResultsSchema = v.pipe(
  v.strictObject({
    results: v.array(
      v.strictObject({ id: v.string(), ok: v.boolean(), code: v.optional(v.string()), message: v.optional(v.string()), case_id: v.optional(v.string()) }),
    ),
  }),
  v.metadata({ ref: 'BulkResults' }),
);
export type BulkResult = v.InferOutput<typeof bulkResultsSchema>['results'][number];

/** The ids of a bulk request: 1 to 500 UUIDs, none twice. */
export const bulkIds = v.pipe(
  v.array(uuid),
  v.minLength(1, 'name at least one id'),
  v.maxLength(BULK_MAX_IDS, `at most ${BULK_MAX_IDS} ids`),
  v.check((ids) => new Set(ids).size === ids.length, 'an id is named twice'),
);

/** The OpenAPI description of the optional `Idempotency-Key` header of the bulk routes. */
export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description: 'Sent again with the same body, the first answer is replayed and nothing runs again',
  schema: { type: 'string' as const, minLength: 1, maxLength: 200 },
};

/** A refusal as a bulk result. */
export const failed = (id: string, error: DomainError): BulkResult => ({ id, ok: false, code: error.code, message: error.message });

export type CaseBulkDeps = Pick<HttpDeps, 'caseConfig' | 'cases' | 'customFields' | 'db' | 'mcpIdempotency' | 'permissions' | 'waitFor'>;

export function caseBulkRoutes(deps: CaseBulkDeps) {
  const { caseConfig: cfg } = deps;
  const { access, manage } = caseRouteGuards(deps.db, deps.permissions);
  const closed = [...cfg.closedStatuses];
  const statuses = { close: closed.at(-1) ?? cfg.initialStatus, reopen: cfg.initialStatus, closed: cfg.closedStatuses };
  const status = v.picklist(cfg.statuses as string[], `must be one of ${cfg.statuses.join(', ')}`);
  const severity = v.picklist(cfg.severities as string[], `must be one of ${cfg.severities.join(', ')}`);
  const tags = v.pipe(v.array(nonEmptyText(100)), v.minLength(1, 'name at least one tag'));
  const ids = { ids: bulkIds };
  const body = v.variant('operation', [
    v.strictObject({ ...ids, operation: v.literal('close') }),
    v.strictObject({ ...ids, operation: v.literal('reopen') }),
    v.strictObject({ ...ids, operation: v.literal('set_status'), params: v.strictObject({ status }) }),
    v.strictObject({ ...ids, operation: v.literal('assign'), params: v.strictObject({ owner_id: v.nullable(uuid) }) }),
    v.strictObject({ ...ids, operation: v.literal('set_severity'), params: v.strictObject({ severity }) }),
    v.strictObject({ ...ids, operation: v.literal('add_tags'), params: v.strictObject({ tags }) }),
    v.strictObject({ ...ids, operation: v.literal('remove_tags'), params: v.strictObject({ tags }) }),
  ]);

  return new Hono<AppEnv>().post(
    '/cases/bulk',
    describeRoute({
      summary: `One operation on up to ${BULK_MAX_IDS} cases: close, reopen, set_status, assign, set_severity, add_tags or remove_tags; each id succeeds or fails alone`,
      tags: ['cases'],
      parameters: [idempotencyKeyHeader],
      responses: { 200: jsonAnswer(bulkResultsSchema, "Each id's outcome, in the order given") },
    }),
    manage,
    requireJson,
    validate('json', body),
    async (c) => {
      const request = c.req.valid('json');
      return onceByIdempotencyKey(c, deps.mcpIdempotency, 'POST /cases/bulk', request, async () => {
        const principal = c.get('principal');
        const op: CaseBulkOperation = request;
        const fields = await deps.customFields.rules();
        const results: BulkResult[] = [];
        let last: number | null = null;
        for (let start = 0; start < request.ids.length; start += BULK_BATCH) {
          const batch = request.ids.slice(start, start + BULK_BATCH);
          const outcomes: (BulkResult | null)[] = [];
          const items: { caseId: string; build: (state: CaseState, now: string) => CaseCommand }[] = [];
          for (const id of batch) {
            try {
              const theCase = await access.actOn(principal, id, 'manage_cases');
              const ownerId = request.operation === 'assign' ? request.params.owner_id : null;
              const owner = ownerId === null ? null : await assignableUser(deps.db, deps.permissions, ownerId, theCase, 'owner_id');
              items.push({ caseId: id, build: (state, now) => bulkCaseCommand(op, statuses, state, now, owner, fields) });
              outcomes.push(null);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              outcomes.push(failed(id, error));
            }
          }
          const decided = items.length === 0 ? { outcomes: [], position: null } : await deps.cases.batch(items, actorOf(principal));
          let next = 0;
          for (const [index, id] of batch.entries()) {
            const refused = outcomes[index];
            const outcome = refused ? null : decided.outcomes[next++];
            results.push(refused ?? (outcome?.ok === false ? failed(id, outcome.error) : { id, ok: true }));
          }
          last = decided.position ?? last;
        }
        await deps.waitFor(last);
        return c.json({ results });
      });
    },
  );
}
