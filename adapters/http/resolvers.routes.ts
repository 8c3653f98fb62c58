/**
 * The cross-product resolvers (SPEC.md "Cross-product resolvers", "Versioning"):
 * `GET /related-cases` (contract `suite-related-cases/v1`) and
 * `GET /suite-context/<suite_correlation_id>`. Both are live reads in the caller's case
 * and alert scope, answered with navigation metadata only; `url` values sit below
 * SVC_PUBLIC_PREFIX.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { relatedOpenCases, suiteContext, type ObservableKey } from '../../projections/cases/resolvers.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { normalizeObservable, observableTypes, type ObservableType } from '../observables/normalize.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { uuid } from '../shared/shapes.ts';
import { validate } from './validation.ts';

/**
 * ECS fields a caller may name in `observable_field`, and the observable type each
 * holds; a field not listed here matches the value as every type it parses as.
 */
const fieldTypes: Readonly<Record<string, ObservableType>> = {
  'source.ip': 'ip',
  'destination.ip': 'ip',
  'client.ip': 'ip',
  'server.ip': 'ip',
  'host.ip': 'ip',
  'host.name': 'hostname',
  'host.hostname': 'hostname',
  'user.name': 'user',
  'user.email': 'email',
  'url.full': 'url',
  'url.original': 'url',
  'url.domain': 'domain',
  'dns.question.name': 'domain',
  'file.hash.md5': 'md5',
  'file.hash.sha1': 'sha1',
  'file.hash.sha256': 'sha256',
};

/** The (type, normalized value) pairs `value` stands for: one type when the field names it, else every type it parses as. */
export function observableKeys(value: string, field: string | undefined): ObservableKey[] {
  const named = field === undefined ? undefined : fieldTypes[field];
  const types = named ? [named] : observableTypes;
  return types.flatMap((type) => {
    const n = normalizeObservable(type, value);
    return n.ok ? [{ type, normalized: n.value }] : [];
  });
}

/** `suite-related-cases/v1` (SPEC.md "Cross-product resolvers"): the open cases holding the observable, and how many observable rows matched. */
export const relatedCasesSchema = v.strictObject({
  contract_version: v.literal(1),
  open_cases: v.array(v.strictObject({ key: v.string(), severity: v.string(), status: v.string(), url: v.string() })),
  observable_hits: v.number(),
});

/** The alerts and cases of one suite-wide correlation id, navigation metadata only. */
export const suiteContextSchema = v.strictObject({
  suite_correlation_id: v.string(),
  alerts: v.array(v.strictObject({ id: v.string(), title: v.string(), severity: v.string(), status: v.string(), source: v.string(), url: v.string() })),
  cases: v.array(v.strictObject({ id: v.string(), key: v.string(), title: v.string(), severity: v.string(), status: v.string(), url: v.string() })),
});

/** The one body every invisible or absent suite context gets, so the two cannot be told apart. */
const suiteContextNotFound = () => notFound('suite_context_not_found', 'suite context not found');

/** What the resolver routes read of the service (adapters/http/deps.ts). */
export type ResolverRouteDeps = Pick<HttpDeps, 'caseConfig' | 'db' | 'permissions' | 'publicPrefix'>;

export function resolverRoutes(deps: ResolverRouteDeps) {
  const { db } = deps;
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const href = (path: string) => `${deps.publicPrefix}${path}`;

  return new Hono<AppEnv>()
    .get(
      '/related-cases',
      describeRoute({
        summary: 'Open cases holding an observable (suite-related-cases/v1); 204 when none',
        tags: ['resolvers'],
        responses: { 200: jsonAnswer(relatedCasesSchema, 'Open cases holding the observable'), 204: { description: 'No open case I may see holds it' } },
      }),
      read,
      validate(
        'query',
        v.object({
          observable_value: v.pipe(v.string('is required'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(2048)),
          observable_field: v.optional(v.pipe(v.string(), v.maxLength(200))),
          exclude_case_id: v.optional(uuid),
          contract_version: v.optional(v.picklist(['1'], 'unsupported contract_version: this service answers suite-related-cases/v1 only')),
        }),
      ),
      async (c) => {
        const q = c.req.valid('query');
        const found = await relatedOpenCases(
          db,
          {
            keys: observableKeys(q.observable_value, q.observable_field),
            excludeCaseId: q.exclude_case_id ?? null,
            closedStatuses: [...deps.caseConfig.closedStatuses],
          },
          caseScopeOf(c.get('principal'), deps.permissions),
        );
        c.header('cache-control', 'no-store');
        if (found.cases.length === 0) return c.body(null, 204);
        return c.json({
          contract_version: 1,
          open_cases: found.cases.map((r) => ({ key: r.key, severity: r.severity, status: r.status, url: href(`/cases/${r.id}`) })),
          observable_hits: found.hits,
        } satisfies v.InferOutput<typeof relatedCasesSchema>);
      },
    )
    .get(
      '/suite-context/:id',
      describeRoute({
        summary: 'Alerts and cases of a suite-wide correlation id (navigation only)',
        tags: ['resolvers'],
        responses: { 200: jsonAnswer(suiteContextSchema, 'The alerts and cases I may see') },
      }),
      read,
      validate('param', v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const found = await suiteContext(db, id, caseScopeOf(c.get('principal'), deps.permissions));
        if (found.alerts.length === 0 && found.cases.length === 0) throw suiteContextNotFound();
        c.header('cache-control', 'no-store');
        return c.json({
          suite_correlation_id: id,
          alerts: found.alerts.map((a) => ({
            id: a.id,
            title: a.title,
            severity: a.severity,
            status: a.status,
            source: a.source,
            url: href(`/alerts/${a.id}`),
          })),
          cases: found.cases.map((r) => ({ id: r.id, key: r.key, title: r.title, severity: r.severity, status: r.status, url: href(`/cases/${r.id}`) })),
        } satisfies v.InferOutput<typeof suiteContextSchema>);
      },
    );
}
