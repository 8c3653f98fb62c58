/**
 * Response policy routes (SPEC.md "Response policy", admin with no team; docs/containment.md):
 * - `GET /response-policy` -> the policy in force (version 0, the default, before any
 *   publish) plus `bindable_actions`;
 * - `PUT /response-policy {protected_targets, ttl, automatic_grants?, adapters?, base_version?}`
 *   -> the policy as published: a new version when it differs from the one in force
 *   (domain/response-policy/), audited `response_policy.publish`;
 * - `GET /response-policy/versions` -> every published version, newest first.
 * A document the runtime cannot evaluate (policyProblems: a malformed protected target, a
 * TTL range upside down, a binding of an unregistered, arbitrary-tier or managed action)
 * is a 422 validation failure under `body`, and nothing is published.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { defaultResponsePolicy, normalizePolicy, policyProblems, responsePolicySchema, type ActionFacts } from '../../domain/response-policy/policy.ts';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { listCustomActions } from '../../projections/custom-actions/custom-actions.queries.ts';
import { currentResponsePolicy, responsePolicyVersions } from '../../projections/response-policy/response-policy.queries.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';
import { boundActionFacts } from '../effects/bound-actions.ts';
import { auditActorOf } from '../commands/audit.ts';
import { requirePermission } from './auth.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

export type ResponsePolicyRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'waitFor' | 'actions' | 'responsePolicy'>;

const putBody = v.strictObject({
  ...responsePolicySchema.entries,
  /** The version the author read; when given and no longer in force, 409 `response_policy_version_conflict`. */
  base_version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

const bindableActionSchema = v.strictObject({
  name: v.string(),
  connection_kind: v.string(),
  risk: v.string(),
  source: v.picklist(['builtin', 'custom']),
  /** A custom action's declared effect and target types; null for a built-in. */
  effect_type: v.nullable(v.string()),
  target_type: v.nullable(v.string()),
  /** The action that undoes this one, which a binding of it as the block must name as the unblock; null when none is declared. */
  compensation: v.nullable(v.string()),
});

const policyViewSchema = v.pipe(
  v.strictObject({
    /** 0 before the first publish: the default policy. */
    version: v.number(),
    digest: v.nullable(v.string()),
    published_at: v.nullable(v.string()),
    published_by: v.nullable(v.string()),
    ...responsePolicySchema.entries,
    /** Registered actions a binding may name: implemented, not managed, not in the arbitrary tier, over http or ssh. */
    bindable_actions: v.array(bindableActionSchema),
  }),
  v.metadata({ ref: 'ResponsePolicy' }),
);

const versionsSchema = v.strictObject({
  items: v.array(
    v.strictObject({
      version: v.number(),
      digest: v.string(),
      published_at: v.string(),
      published_by: v.nullable(v.string()),
      ...responsePolicySchema.entries,
    }),
  ),
});

/** Registry facts a binding is checked against (domain/response-policy/policy.ts), read as the effects runtime reads them. */
export function actionFacts(registry: ActionRegistry): (name: string) => ActionFacts {
  return (name) => {
    const bound = boundActionFacts(registry, name);
    return {
      registered: bound?.enabled ?? false,
      managed: name.startsWith('response.'),
      arbitrary: bound?.arbitrary ?? false,
      compensation: bound?.compensation ?? null,
    };
  };
}

export function responsePolicyRoutes(deps: ResponsePolicyRouteDeps) {
  const admin = requirePermission('admin', 'svc:admin:read', deps.permissions, null);
  const publish = requirePermission('admin', 'svc:admin:write', deps.permissions, null);
  const facts = actionFacts(deps.actions);

  const bindable = async () => {
    const custom = new Map((await listCustomActions(deps.db)).map((a) => [a.name, a.spec as { effect_type?: string; target?: { type: string } | null }]));
    return deps.actions
      .entries()
      .filter((e) => e.implemented && (e.connection_kind === 'http' || e.connection_kind === 'ssh'))
      .map((e) => ({ e, f: facts(e.name) }))
      .filter(({ f }) => f.registered && !f.managed && !f.arbitrary)
      .map(({ e, f }) => {
        const spec = custom.get(e.name);
        return {
          name: e.name,
          connection_kind: e.connection_kind,
          risk: e.risk,
          source: spec ? ('custom' as const) : ('builtin' as const),
          effect_type: spec?.effect_type ?? null,
          target_type: spec?.target?.type ?? null,
          compensation: f.compensation,
        };
      });
  };
  const policyView = async (): Promise<v.InferOutput<typeof policyViewSchema>> => {
    const current = await currentResponsePolicy(deps.db);
    const head = current
      ? { version: current.version, digest: current.digest, published_at: current.published_at, published_by: current.published_by, ...current.policy }
      : { version: 0, digest: null, published_at: null, published_by: null, ...defaultResponsePolicy() };
    return { ...head, bindable_actions: await bindable() };
  };

  return new Hono<AppEnv>()
    .get(
      '/response-policy',
      describeRoute({
        summary: 'The response policy in force and the actions a binding may name',
        tags: ['response-policy'],
        responses: { 200: jsonAnswer(policyViewSchema, 'The policy (version 0: the default before any publish) and bindable_actions') },
      }),
      admin,
      async (c) => c.json(await policyView()),
    )
    .put(
      '/response-policy',
      describeRoute({
        summary: 'Publish a response policy as the next version',
        tags: ['response-policy'],
        responses: {
          200: jsonAnswer(policyViewSchema, 'The policy in force: the new version, or the same one when nothing changed'),
          409: jsonAnswer(errorBodySchema, 'response_policy_version_conflict: base_version is no longer in force'),
        },
      }),
      publish,
      requireJson,
      validate('json', putBody),
      async (c) => {
        const { base_version, ...policy } = c.req.valid('json');
        const problems = policyProblems(policy, facts);
        if (problems.length > 0) throw new ValidationFailed(problems.map((p) => ({ loc: ['body', ...p.loc], msg: p.msg, type: p.type })));
        const principal = c.get('principal');
        const r = await deps.responsePolicy.publish(normalizePolicy(policy), base_version ?? null, {
          actor: actorOf(principal),
          audit: auditActorOf(principal),
        });
        await deps.waitFor(r.position);
        return c.json(await policyView());
      },
    )
    .get(
      '/response-policy/versions',
      describeRoute({
        summary: 'Every published response policy version, newest first',
        tags: ['response-policy'],
        responses: { 200: jsonAnswer(versionsSchema, 'The versions, each with its whole document') },
      }),
      admin,
      async (c) => c.json({ items: (await responsePolicyVersions(deps.db)).map(({ policy, ...rest }) => ({ ...rest, ...policy })) }),
    );
}
