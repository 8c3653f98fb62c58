/**
 * Case routes (SPEC.md "Cases"): list, create, detail, status, assign, acknowledge,
 * timeline, comments. Mutations need `manage_cases`; every answer is read back from
 * the projections after they caught up with the command (read-your-writes).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import type { CaseTemplate } from '../../domain/case-templates/template.ts';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import { caseComments, caseTimeline, listCases, type CaseRow } from '../../projections/cases/cases.queries.ts';
import { myTriageFeedback } from '../../projections/ai/triage.queries.ts';
import type { Actor } from '../../domain/cases/index.ts';
import type { Grant, Principal } from '../identity/principal.ts';
import { hasPermission, type PermissionMatrix } from '../identity/permissions.ts';
import { caseScopeOf, userCanSeeCase } from '../identity/case-scope.ts';
import { auditActorOf } from '../commands/audit.ts';
import { assignableUser } from './assignee.ts';
import { requireTeamPermission } from './auth.ts';
import { caseRouteGuards } from './case-access.ts';
import { caseSchema, caseView, type CaseView } from './case-view.ts';
import { jsonAnswer } from './openapi.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { idParam, paging, queryFlag, uuid, nonEmptyText, commentBody } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';
import { listPageAnswer, listPageSchema } from './list-page.ts';
import { TECHNIQUE_ID } from '../../domain/attack/catalog.ts';
import { caseListFilters } from './list-filters.ts';
import { filtersWithView } from './saved-view-query.ts';
import { checkedCustomFields } from './custom-field-values.ts';
import { CUSTOM_FIELD_SORT, customFieldQuery } from './custom-field-query.ts';

export const actorOf = (p: Principal): Actor => ({ userId: p.userId, email: p.email });

/** A page of `GET /cases`: `total` and `total_relation` only with `include_total=true`. */
const caseListSchema = listPageSchema(caseSchema);

/** A case comment (SPEC.md "Comment"): `text` is SPEC.md's name, `body` this API's older one. */
export const commentObject = v.strictObject({
  id: v.string(),
  case_id: v.string(),
  text: v.string(),
  body: v.string(),
  author_id: v.nullable(v.string()),
  author_email: v.nullable(v.string()),
  created_at: v.string(),
  /** A copy a case merge brought: the source case, the comment's id there, and when it was written (our addition, issue 50); null otherwise. */
  merged_from: v.nullable(v.strictObject({ case_id: v.string(), id: v.string(), at: v.string() })),
});
/** `commentObject` as the document's component schema `Comment`. */
export const commentSchema = v.pipe(commentObject, v.metadata({ ref: 'Comment' }));

/** Who a comment's `@<EMAIL>` mentions reached (SPEC.md "Comment"). */
export const mentionsSchema = v.strictObject({
  notified: v.array(v.string()),
  unresolved: v.array(v.string()),
  not_notified: v.array(v.strictObject({ email: v.string(), reason: v.string() })),
});

/** One entry of a case's timeline: its kind, payload and actor. */
const timelineSchema = v.pipe(
  v.strictObject({
    items: v.array(v.strictObject({ id: v.string(), kind: v.string(), payload: v.unknown(), actor: v.nullable(v.string()), at: v.string() })),
  }),
  v.metadata({ ref: 'Timeline' }),
);

const caseAnswer = (description: string) => ({ 200: jsonAnswer(caseSchema, description) });

/** ATT&CK technique ids (SPEC.md "Case"): `T<digits>` or `T<digits>.<digits>`, upper-cased, de-duplicated, at most 50. */
const attackTechniques = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.toUpperCase(), v.regex(TECHNIQUE_ID, 'must be a technique id like T1059 or T1059.001'))),
  v.transform((ids) => [...new Set(ids)]),
  v.maxLength(50, 'at most 50 techniques'),
);

/**
 * The team of a case opened without one: the caller's only team when it may manage
 * cases there and holds no realm grant that could; otherwise org-wide (null).
 */
function defaultTeam(principal: Principal, matrix: PermissionMatrix): string | null {
  const managing = principal.grants.filter((g) => matrix[g.role].includes('manage_cases'));
  if (managing.some((g) => g.team === null)) return null;
  const teams = [...new Set(managing.map((g) => g.team))];
  return teams.length === 1 ? (teams[0] ?? null) : null;
}

/** What the case routes read of the service (adapters/http/deps.ts). */
export type CaseRouteDeps = Pick<
  HttpDeps,
  | 'ackSla'
  | 'caseConfig'
  | 'caseListTotalCap'
  | 'caseTemplateCommands'
  | 'caseTemplates'
  | 'cases'
  | 'customFields'
  | 'db'
  | 'now'
  | 'permissions'
  | 'views'
  | 'waitFor'
>;

export function caseRoutes(deps: CaseRouteDeps) {
  const { caseConfig: cfg, db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);
  const severity = v.picklist(cfg.severities as string[], `must be one of ${cfg.severities.join(', ')}`);
  const status = v.picklist(cfg.statuses as string[], `must be one of ${cfg.statuses.join(', ')}`);
  const listFilters = caseListFilters(cfg);

  const views = (principal: Principal, rows: CaseRow[]) => caseViews(deps, principal, rows);
  /** The case as the caller sees it after a command: read back once projections caught up. */
  const loadView = async (principal: Principal, id: string) => (await views(principal, [await access.visible(principal, id)]))[0];

  return new Hono<AppEnv>()
    .get(
      '/cases',
      describeRoute({
        summary: 'List cases (filters, or a saved view with `view`; `cf.<name>=<value>` filters and `sort=cf.<name>` or `-cf.<name>` sorts by a custom field)',
        tags: ['cases'],
        responses: { 200: jsonAnswer(caseListSchema, 'A page of case summaries') },
      }),
      read,
      validate(
        'query',
        v.object({
          ...listFilters,
          view: v.optional(uuid),
          sort: v.optional(v.pipe(v.string(), v.regex(CUSTOM_FIELD_SORT, 'cf.<name> or -cf.<name>'))),
          include_total: queryFlag,
          ...paging,
        }),
      ),
      async (c) => {
        const q = await filtersWithView(deps.views, c.get('principal'), 'cases', listFilters, c.req.valid('query'));
        const custom = await customFieldQuery(deps.customFields, c.req.query());
        if (q.view !== undefined && custom.filters.length > 0) {
          throw new ValidationFailed([{ loc: ['query', 'view'], msg: 'send either a view or filters, not both (cf.<name>)', type: 'value_error' }]);
        }
        const filters = { ...q, customFields: custom.filters, sort: custom.sort };
        const page = await listCases(db, filters, caseScopeOf(c.get('principal'), deps.permissions), q.include_total ? deps.caseListTotalCap : null);
        return c.json(listPageAnswer(page, await views(c.get('principal'), page.items), q));
      },
    )
    .post(
      '/cases',
      describeRoute({ summary: 'Open a case', tags: ['cases'], responses: { 201: jsonAnswer(caseSchema, 'The new case') } }),
      manage,
      requireJson,
      validate(
        'json',
        v.object({
          title: nonEmptyText(500),
          description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20_000)))),
          severity,
          tags: v.optional(v.array(nonEmptyText(100)), []),
          template_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
          team: v.optional(v.nullable(nonEmptyText(200))),
          private: v.optional(v.boolean(), false),
        }),
      ),
      async (c) => {
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const team = body.team !== undefined ? body.team : defaultTeam(principal, deps.permissions);
        requireTeamPermission(principal, 'manage_cases', team, deps.permissions);
        const input = { title: body.title, description: body.description ?? null, severity: body.severity, tags: body.tags, team, private: body.private };
        const template = body.template_id ? templateOf(deps, body.template_id) : null;
        const r = template ? await deps.caseTemplateCommands.open(input, template, actorOf(principal)) : await deps.cases.open(input, actorOf(principal));
        await deps.waitFor(r.position);
        return c.json(await loadView(principal, r.caseId), 201);
      },
    )
    .get(
      '/cases/assignable-users',
      describeRoute({
        summary:
          "Active users who may manage cases: those who can see case `case_id`, else those of `team` (a team the caller is in), else of the caller's teams",
        tags: ['cases'],
        responses: {
          200: jsonAnswer(
            v.strictObject({ items: v.array(v.strictObject({ id: v.string(), email: v.string(), name: v.nullable(v.string()) })) }),
            'Assignable users',
          ),
        },
      }),
      read,
      validate('query', v.object({ team: v.optional(nonEmptyText(200)), case_id: v.optional(uuid) })),
      async (c) => {
        const { team, case_id: caseId } = c.req.valid('query');
        const principal = c.get('principal');
        const theCase = caseId === undefined ? null : await access.visible(principal, caseId);
        const realm = principal.grants.some((g) => g.team === null);
        // Nobody learns who works in a team they are not in (issue 46).
        if (theCase === null && team !== undefined && !realm && !principal.grants.some((g) => g.team === team)) {
          throw new DomainError('forbidden', 403, 'a grant in that team is required to list its people', { team });
        }
        const teams = theCase !== null ? [theCase.team] : team !== undefined ? [team] : realm ? null : [...new Set(principal.grants.map((g) => g.team))];
        const users = await db.selectFrom('users').select(['id', 'email', 'name', 'grants']).where('active', '=', true).orderBy('email').execute();
        const assignable = (u: (typeof users)[number]) => {
          const grants = u.grants as Grant[];
          const manages =
            teams === null
              ? hasPermission({ grants }, 'manage_cases', deps.permissions)
              : teams.some((t) => hasPermission({ grants }, 'manage_cases', deps.permissions, t));
          return manages && (theCase === null || userCanSeeCase({ id: u.id, grants }, theCase, deps.permissions));
        };
        return c.json({ items: users.filter(assignable).map((u) => ({ id: u.id, email: u.email, name: u.name })) });
      },
    )
    .get(
      '/cases/:id',
      describeRoute({ summary: 'Case detail', tags: ['cases'], responses: caseAnswer('The case') }),
      read,
      validate('param', idParam),
      async (c) => c.json(await loadView(c.get('principal'), c.req.valid('param').id)),
    )
    .put(
      '/cases/:id',
      describeRoute({
        summary: 'Update case fields, the private flag, ATT&CK techniques and custom field values (merged; null clears one)',
        tags: ['cases'],
        responses: caseAnswer('The updated case'),
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate(
        'json',
        v.pipe(
          v.object({
            title: v.optional(nonEmptyText(500)),
            description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20_000)))),
            severity: v.optional(severity),
            tags: v.optional(v.array(nonEmptyText(100))),
            private: v.optional(v.boolean()),
            attack_techniques: v.optional(attackTechniques),
            custom_fields: v.optional(
              v.pipe(
                v.record(v.string(), v.unknown()),
                v.check((values) => Object.keys(values).length <= 200, 'at most 200 custom fields'),
              ),
            ),
          }),
          v.check((b) => Object.keys(b).length > 0, 'name at least one field to change'),
        ),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const { attack_techniques: techniques, custom_fields: given, ...changes } = c.req.valid('json');
        const values = given === undefined ? undefined : await checkedCustomFields(db, deps.customFields, theCase.team, given);
        const r = await deps.cases.update(id, changes, actorOf(principal), techniques, values);
        await deps.waitFor(r.position);
        return c.json(await loadView(principal, id));
      },
    )
    .post(
      '/cases/:id/status',
      describeRoute({ summary: 'Change the status of a case', tags: ['cases'], responses: caseAnswer('The case in its new status') }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ status, note: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4000)))) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const r = await deps.cases.changeStatus(id, body.status, body.note ?? null, actorOf(principal));
        await deps.waitFor(r.position);
        return c.json(await loadView(principal, id));
      },
    )
    .post(
      '/cases/:id/assign',
      describeRoute({ summary: 'Assign or unassign the owner', tags: ['cases'], responses: caseAnswer('The case with its owner') }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ owner_id: v.nullable(uuid) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const { owner_id: ownerId } = c.req.valid('json');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const owner = ownerId === null ? null : await assignableUser(db, deps.permissions, ownerId, theCase, 'owner_id');
        const r = await deps.cases.assign(id, owner, actorOf(principal));
        await deps.waitFor(r.position);
        return c.json(await loadView(principal, id));
      },
    )
    .post(
      '/cases/:id/acknowledge',
      describeRoute({
        summary: 'Acknowledge a case (idempotent: the first stamp stays)',
        tags: ['cases'],
        responses: caseAnswer('The case with its acknowledgement'),
      }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const r = await deps.cases.acknowledge(id, actorOf(principal), auditActorOf(principal));
        await deps.waitFor(r.position);
        return c.json(await loadView(principal, id));
      },
    )
    .get(
      '/cases/:id/timeline',
      describeRoute({
        summary: 'Chronological timeline of a case',
        tags: ['cases'],
        responses: { 200: jsonAnswer(timelineSchema, 'The timeline, oldest first') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const rows = await caseTimeline(db, id);
        return c.json({
          items: rows.map((r) => ({
            id: String(r.event_position),
            kind: r.kind,
            payload: r.payload,
            actor: r.actor_email ?? r.actor_id,
            at: new Date(r.at).toISOString(),
          })),
        });
      },
    )
    .get(
      '/cases/:id/comments',
      describeRoute({
        summary: 'Comments of a case',
        tags: ['cases'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(commentSchema) }), 'The comments') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const rows = await caseComments(db, id);
        return c.json({ items: rows.map(commentView) });
      },
    )
    .post(
      '/cases/:id/comments',
      describeRoute({
        summary: 'Comment on a case',
        tags: ['cases'],
        responses: { 201: jsonAnswer(v.strictObject({ ...commentObject.entries, mentions: mentionsSchema }), 'The comment and whom its mentions reached') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', commentBody(20_000)),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const r = await deps.cases.comment(id, c.req.valid('json').body, actorOf(principal), theCase);
        await deps.waitFor(r.position);
        const created = (await caseComments(db, id)).find((row) => row.id === r.commentId);
        if (!created) throw new Error(`comment ${r.commentId} missing from the read model after projection`);
        const { notified, unresolved, not_notified: notNotified } = r.mentions;
        return c.json({ ...commentView(created), mentions: { notified: notified.map((n) => n.email), unresolved, not_notified: notNotified } }, 201);
      },
    )
    .delete(
      '/cases/:id/comments/:comment_id',
      describeRoute({
        summary: 'Soft-delete a comment (its author or an admin of the case team)',
        tags: ['cases'],
        responses: { 204: { description: 'Deleted' } },
      }),
      manage,
      validate('param', v.object({ id: uuid, comment_id: uuid })),
      async (c) => {
        const { id, comment_id: commentId } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const isAdmin = hasPermission(principal, 'admin', deps.permissions, theCase.team);
        const r = await deps.cases.deleteComment(id, commentId, actorOf(principal), isAdmin);
        await deps.waitFor(r.position);
        return c.body(null, 204);
      },
    );
}

/** The case documents of `rows` for `principal`, each with the reader's feedback on its AI verdict. */
export async function caseViews(deps: Pick<HttpDeps, 'ackSla' | 'db' | 'now'>, principal: Principal, rows: CaseRow[]): Promise<CaseView[]> {
  const triaged = rows.filter((r) => r.ai_triage !== null).map((r) => r.id);
  const mine = principal.userId === null ? new Map() : await myTriageFeedback(deps.db, principal.userId, triaged);
  return rows.map((row) => caseView(row, deps.now(), deps.ackSla, mine.get(row.id) ?? null));
}

/** A case comment as the case routes and the war-room show it. */
export function commentView(r: Awaited<ReturnType<typeof caseComments>>[number]): v.InferOutput<typeof commentSchema> {
  return {
    id: r.id,
    case_id: r.case_id,
    text: r.body,
    body: r.body,
    author_id: r.author_id,
    author_email: r.author_email,
    created_at: new Date(r.created_at).toISOString(),
    merged_from: r.merged_from,
  };
}

/** The case template `id` (`template_id` of the request body), or a 422 naming that field. */
export function templateOf(deps: Pick<HttpDeps, 'caseTemplates'>, id: string): CaseTemplate {
  const template = deps.caseTemplates.get(id);
  if (!template) throw new ValidationFailed([{ loc: ['body', 'template_id'], msg: `unknown case template '${id}'`, type: 'value_error' }]);
  return template;
}
