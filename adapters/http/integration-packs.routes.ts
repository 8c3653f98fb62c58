/**
 * Integration pack routes (SPEC.md "Integration packs", all `manage_runbooks` with no
 * team; docs/integration-packs.md):
 * - `GET /integration-packs/registry` -> `{format, version, items}`: each pack of the
 *   registry in SVC_PACKS_DIR as `{id, metadata, file, sha256, signature_state, verified,
 *   install_state, installed_version, available, refusal}`, SPEC.md's entry fields with the
 *   pack's metadata block under `metadata`;
 * - `POST /integration-packs/registry/<pack_id>/preview` -> the install or upgrade plan,
 *   side-effect free, with drift, blocking runs and its `preview_token`;
 * - `POST .../install`, `.../upgrade {preview_token, accepted_overwrite_ids?, acknowledge_danger?}`
 *   -> the plan carried out (adapters/commands/integration-packs.ts);
 * - `POST .../test {connections?: {http?, ssh?}}` -> `{pack_id, version, rows, summary}`:
 *   fixture-driven checks (adapters/integration-packs/pack-test-runner.ts), actions run
 *   only against the named test-mode connections; audited as `integration_pack.test`;
 * - `GET /integration-packs/export` -> the API-authored custom actions as pack YAML.
 * A pack that is not `available` is refused before planning with its refusal's code
 * (422, e.g. `pack_checksum_mismatch`), so nothing of it is ever installed.
 */
import { type Context, Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { exportPack } from '../../domain/integration-packs/export.ts';
import { PACK_NAME, semanticVersion } from '../../domain/integration-packs/pack.ts';
import { packTestRowSchema } from '../../domain/integration-packs/pack-test.ts';
import { installStateOf } from '../../domain/integration-packs/registry.ts';
import type { StoredCustomActionSpec } from '../../domain/custom-actions/spec.ts';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import { listCustomActions } from '../../projections/custom-actions/custom-actions.queries.ts';
import { installedVersions } from '../../projections/integration-packs/integration-packs.queries.ts';
import { auditActorOf } from '../commands/audit.ts';
import type { CustomActionAuthorship } from '../commands/custom-actions.ts';
import type { IntegrationPackCommands, PackSource } from '../commands/integration-packs.ts';
import { hasPermission } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { runPackTest } from '../integration-packs/pack-test-runner.ts';
import { readRegistry, readRegistryItem, type RegistryItem } from '../integration-packs/registry-source.ts';
import { requirePermission } from './auth.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

export type IntegrationPackRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'waitFor' | 'integrationPacks' | 'audit'>;

const refusalSchema = v.strictObject({ code: v.string(), message: v.string(), params: v.optional(v.record(v.string(), v.unknown())) });
const installStates = ['not_installed', 'installed', 'upgrade_available', 'installed_ahead'] as const;

/** The pack's metadata: its own block once the file verified and follows the format, else the index's with `requires` and `connection_kinds` null. */
const packMetadataSchema = v.strictObject({
  name: v.string(),
  /** The registry's version of the pack; `install_state` compares it with `installed_version`. */
  version: v.string(),
  title: v.string(),
  description: v.string(),
  publisher: v.string(),
  /** `service`: the semver range of service versions the pack runs on (`*`: any). */
  requires: v.nullable(v.strictObject({ service: v.string() })),
  /** The connection kinds its actions need: kinds only, never a connection. */
  connection_kinds: v.nullable(v.array(v.string())),
});

const registryItemSchema = v.strictObject({
  /** The registry's key for the pack (its name): the `<pack_id>` of the routes below. */
  id: v.string(),
  metadata: packMetadataSchema,
  /** The pack file beside the index and the SHA-256 the index pins for it. */
  file: v.string(),
  sha256: v.string(),
  /** `verified` with a key and a good signature; `unverified` without a key; `missing`, `invalid` refused. */
  signature_state: v.picklist(['verified', 'unverified', 'missing', 'invalid']),
  /** Checksum, signature (with a key), integrity, name and version all hold. */
  verified: v.boolean(),
  install_state: v.picklist(installStates),
  /** The installed version, null when none: install state, not the pack's metadata. */
  installed_version: v.nullable(v.string()),
  /** Verified, valid, compatible and of known connection kinds: it may be previewed and installed. */
  available: v.boolean(),
  refusal: v.nullable(refusalSchema),
});

const planActionSchema = v.strictObject({
  name: v.string(),
  change: v.picklist(['create', 'update', 'unchanged', 'overwrite', 'disable']),
  custom_action_id: v.nullable(v.string()),
  current_version: v.nullable(v.number()),
  version_after: v.number(),
  risk: v.string(),
  effect_type: v.string(),
  arbitrary: v.boolean(),
});

export const packPlanSchema = v.strictObject({
  pack_id: v.string(),
  kind: v.picklist(['install', 'upgrade']),
  from_version: v.nullable(v.string()),
  to_version: v.string(),
  sha256: v.string(),
  actions: v.array(planActionSchema),
  drift: v.array(
    v.strictObject({
      custom_action_id: v.string(),
      name: v.string(),
      reason: v.picklist(['edited_locally', 'not_from_this_pack']),
      installed_version: v.nullable(v.number()),
      current_version: v.number(),
    }),
  ),
  blocking_runs: v.array(v.strictObject({ run_id: v.string(), runbook_id: v.string(), status: v.string(), actions: v.array(v.string()) })),
  requires_acknowledge_danger: v.boolean(),
  /** Send it back to install or upgrade: it binds this exact plan. */
  preview_token: v.string(),
});

const packIdParam = v.object({ pack_id: v.pipe(v.string(), v.regex(PACK_NAME, 'a pack id: lower-case letters, digits and _')) });

const consentBody = v.object({
  /** The `preview_token` of the plan being consented to. */
  preview_token: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'a preview_token from the preview')),
  /** Ids of drifted custom actions the install may overwrite (the plan's `drift`). */
  accepted_overwrite_ids: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.maxLength(200)), []),
  /** Required true when the plan saves an arbitrary-tier action (global administrators only). */
  acknowledge_danger: v.optional(v.boolean(), false),
});

const installedSchema = v.strictObject({
  pack_id: v.string(),
  version: v.string(),
  plan: packPlanSchema,
  actions: v.array(v.strictObject({ name: v.string(), custom_action_id: v.string(), version: v.number() })),
});

const testBody = v.object({
  /** The test-mode connection each transport's actions run against, by name; a transport left out is not executed. */
  connections: v.optional(
    v.strictObject({
      http: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
      ssh: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    }),
    {},
  ),
});

const testAnswerSchema = v.strictObject({
  pack_id: v.string(),
  version: v.string(),
  rows: v.array(packTestRowSchema),
  summary: v.strictObject({ pass: v.number(), fail: v.number(), skipped: v.number() }),
});

const exportQuery = v.object({
  name: v.optional(v.pipe(v.string(), v.regex(PACK_NAME, 'a pack name: lower-case letters, digits and _')), 'local_actions'),
  version: v.optional(semanticVersion, '0.1.0'),
  title: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)), 'Custom actions exported from svc'),
  publisher: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)), 'local'),
});

export function integrationPackRoutes(deps: IntegrationPackRouteDeps) {
  const packs = deps.integrationPacks;
  const manage = requirePermission('manage_runbooks', 'svc:runbooks:write', deps.permissions, null);
  const authorship = (principal: Principal): CustomActionAuthorship => ({
    actor: actorOf(principal),
    audit: auditActorOf(principal),
    globalAdmin: hasPermission(principal, 'admin', deps.permissions, null),
  });
  /** The verified pack to plan with; 422 with the registry's refusal when it is not available. */
  const sourceOf = async (packId: string): Promise<PackSource> => {
    const item = await readRegistryItem(packs.dir, packId, packs.verify);
    if (!item.verdict.available || item.verdict.pack === null) {
      const refusal = item.verdict.refusal ?? { code: 'pack_unavailable', message: 'the pack cannot be installed' };
      throw new DomainError(refusal.code, 422, refusal.message, { pack_id: packId, ...refusal.params });
    }
    return { packId, pack: item.verdict.pack, sha256: item.entry.sha256 };
  };
  const itemView = (item: RegistryItem, installed: string | null): v.InferOutput<typeof registryItemSchema> => ({
    id: item.entry.id,
    metadata: item.verdict.metadata,
    file: item.entry.file,
    sha256: item.entry.sha256,
    signature_state: item.verdict.signature_state,
    verified: item.verdict.verified,
    install_state: installStateOf(item.entry.version, installed),
    installed_version: installed,
    available: item.verdict.available,
    refusal: item.verdict.refusal,
  });
  const consentOf = (body: v.InferOutput<typeof consentBody>) => ({
    previewToken: body.preview_token,
    acceptedOverwriteIds: body.accepted_overwrite_ids,
    acknowledgeDanger: body.acknowledge_danger,
  });
  const carried = async (r: Awaited<ReturnType<IntegrationPackCommands['install']>>) => {
    await deps.waitFor(r.position);
    return { pack_id: r.plan.pack_id, version: r.plan.to_version, plan: r.plan, actions: r.actions };
  };
  /** The handlers of install and upgrade: the same consent, the plan carried out by `kind`. */
  const carryOut = (kind: 'install' | 'upgrade', summary: string) =>
    [
      describeRoute({
        summary,
        tags: ['integration-packs'],
        responses: {
          200: jsonAnswer(installedSchema, `The pack ${kind === 'install' ? 'installed' : 'upgraded'}: the plan carried out and its actions`),
          ...conflictAnswers,
        },
      }),
      manage,
      validate('param', packIdParam),
      requireJson,
      validate('json', consentBody),
      async (c: Context<AppEnv, string, { out: { param: v.InferOutput<typeof packIdParam>; json: v.InferOutput<typeof consentBody> } }>) => {
        const source = await sourceOf(c.req.valid('param').pack_id);
        return c.json(await carried(await packs.commands[kind](source, consentOf(c.req.valid('json')), authorship(c.get('principal')))));
      },
    ] as const;
  const conflictAnswers = {
    // A 422 (the pack's refusal such as pack_checksum_mismatch, or pack_danger_unacknowledged) is declared for every route with input.
    409: jsonAnswer(
      errorBodySchema,
      'pack_preview_stale, pack_blocked_by_runs, pack_overwrite_unaccepted, pack_installed, pack_installed_ahead, pack_not_installed',
    ),
  };

  return new Hono<AppEnv>()
    .get(
      '/integration-packs/registry',
      describeRoute({
        summary: 'The packs of the registry with verification and install state',
        tags: ['integration-packs'],
        responses: {
          200: jsonAnswer(
            v.strictObject({ format: v.literal('pack-registry'), version: v.literal(1), items: v.array(registryItemSchema) }),
            'Every pack the index lists',
          ),
          503: jsonAnswer(errorBodySchema, 'pack_registry_invalid: the index is not pack-registry version 1'),
        },
      }),
      manage,
      async (c) => {
        const [items, installed] = await Promise.all([readRegistry(packs.dir, packs.verify), installedVersions(deps.db)]);
        return c.json({
          format: 'pack-registry' as const,
          version: 1 as const,
          items: items.map((i) => itemView(i, installed.get(i.entry.id) ?? null)),
        });
      },
    )
    .post(
      '/integration-packs/registry/:pack_id/preview',
      describeRoute({
        summary: 'Plan installing or upgrading a pack, with drift and blocking runs; writes nothing',
        tags: ['integration-packs'],
        responses: { 200: jsonAnswer(packPlanSchema, 'The plan and its preview_token'), ...conflictAnswers },
      }),
      manage,
      validate('param', packIdParam),
      async (c) => c.json(await packs.commands.preview(await sourceOf(c.req.valid('param').pack_id))),
    )
    .post('/integration-packs/registry/:pack_id/install', ...carryOut('install', 'Install a pack as previewed'))
    .post('/integration-packs/registry/:pack_id/upgrade', ...carryOut('upgrade', 'Upgrade an installed pack to the registry version as previewed'))
    .post(
      '/integration-packs/registry/:pack_id/test',
      describeRoute({
        summary: 'Fixture-driven checks of a pack, one row per check; actions run only against test-mode connections',
        tags: ['integration-packs'],
        responses: { 200: jsonAnswer(testAnswerSchema, 'Every row (compiles, fixtures, template, connection, execution) and their counts') },
      }),
      manage,
      validate('param', packIdParam),
      requireJson,
      validate('json', testBody),
      async (c) => {
        const source = await sourceOf(c.req.valid('param').pack_id);
        const who = authorship(c.get('principal'));
        const connections = c.req.valid('json').connections;
        const rows = await runPackTest(source.pack, connections, { ...packs.test, mayRunArbitrary: who.globalAdmin });
        const summary = { pass: 0, fail: 0, skipped: 0 };
        for (const row of rows) summary[row.status] += 1;
        const position = await deps.audit.record({
          action: 'integration_pack.test',
          actor: who.audit,
          target: { type: 'integration_pack', id: source.packId },
          team: null,
          detail: { version: source.pack.version, sha256: source.sha256, connections, ...summary },
        });
        // Read-your-writes: the test's audit entry is listed once the answer arrives.
        await deps.waitFor(position);
        return c.json({ pack_id: source.packId, version: source.pack.version, rows, summary });
      },
    )
    .get(
      '/integration-packs/export',
      describeRoute({
        summary: 'The custom actions authored through the API as pack YAML (credential-free, with its integrity block)',
        tags: ['integration-packs'],
        responses: {
          200: { description: 'The pack document', content: { 'application/yaml': { schema: { type: 'string' } } } },
          404: jsonAnswer(errorBodySchema, 'custom_actions_none: no custom action was authored through the API'),
        },
      }),
      manage,
      validate('query', exportQuery),
      async (c) => {
        const authored = (await listCustomActions(deps.db)).filter((a) => a.source === 'api');
        if (authored.length === 0) throw notFound('custom_actions_none', 'no custom action was authored through the API');
        const text = exportPack(
          authored.map((a) => ({ spec: a.spec as StoredCustomActionSpec, enabled: a.enabled })),
          c.req.valid('query'),
        );
        return c.body(text, 200, { 'content-type': 'application/yaml; charset=utf-8' });
      },
    );
}
