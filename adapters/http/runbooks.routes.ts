/**
 * Runbook routes (SPEC.md "Runbooks and runs"): `GET /runbooks` -> `{items}`,
 * `GET /runbooks/<slug>` (definition, YAML and versions), `GET /runbooks/<slug>/versions/<n>`
 * (ours: that version's YAML), `POST /runbooks/validate`
 * -> `{errors: [{loc, msg}]}`, `POST /runbooks/<slug>` `{yaml_text}` ->
 * `{created, changed, runbook}` (201 when created), `POST /runbooks/<slug>/enable|disable`
 * -> the detail, `POST /runbooks/sync` -> `{created, updated, skipped, errors}` from the
 * Git source when one is configured (502 `runbook_source_unavailable` or
 * `runbook_source_proxy_refused` when it cannot be fetched; nothing changes), else from
 * the local directory.
 * Reads need `read`; writes need `manage_runbooks` from a realm grant, since a runbook
 * serves every team. The rules of a save are in adapters/runbooks/runbook-store.ts.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import type { Principal } from '../identity/principal.ts';
import { fetchGitSource } from '../runbooks/git-source.ts';
import {
  runbookDetailSchema,
  runbookErrorSchema,
  runbookSavedSchema,
  runbookSummarySchema,
  runbookVersionSchema,
  syncReportSchema,
} from '../runbooks/runbook-answers.ts';
import { requirePermission } from './auth.ts';
import { recordAudit } from './audited.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

const MAX_YAML_CHARS = 512 * 1024;
const yamlBody = v.object({ yaml_text: v.pipe(v.string(), v.maxLength(MAX_YAML_CHARS)) });
const slugParam = v.object({ slug: v.pipe(v.string(), v.regex(/^[a-z0-9-]{3,64}$/, 'must match ^[a-z0-9-]{3,64}$')) });

/** What the runbook routes read of the service (adapters/http/deps.ts). */
export type RunbookRouteDeps = Pick<HttpDeps, 'audit' | 'permissions' | 'runbookGit' | 'runbooks' | 'waitFor'>;

export function runbookRoutes(deps: RunbookRouteDeps) {
  const read = requirePermission('read', 'svc:runbooks:read', deps.permissions);
  // Runbooks are install-wide: a team grant cannot change what every team's alerts run.
  const manage = requirePermission('manage_runbooks', 'svc:runbooks:write', deps.permissions, null);
  const setEnabled = async (principal: Principal, slug: string, enabled: boolean) => {
    const runbook = await deps.runbooks.setEnabled(slug, enabled);
    await recordAudit(deps, principal, {
      action: enabled ? 'runbook.enable' : 'runbook.disable',
      target: { type: 'runbook', id: slug },
      detail: { version: runbook.version },
    });
    return runbook;
  };
  return new Hono<AppEnv>()
    .get(
      '/runbooks',
      describeRoute({
        summary: 'List runbooks',
        tags: ['runbooks'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(runbookSummarySchema) }), 'Visible runbooks, by slug') },
      }),
      read,
      async (c) => c.json({ items: await deps.runbooks.summaries() }),
    )
    .post(
      '/runbooks/validate',
      describeRoute({
        summary: 'Validate runbook YAML',
        tags: ['runbooks'],
        responses: { 200: jsonAnswer(v.strictObject({ errors: v.array(runbookErrorSchema) }), 'Every problem of the YAML; none when it is valid') },
      }),
      read,
      requireJson,
      validate('json', yamlBody),
      (c) => c.json({ errors: deps.runbooks.validate(c.req.valid('json').yaml_text) }),
    )
    .post(
      '/runbooks/sync',
      describeRoute({
        summary: 'Pull the runbook Git source, or reload the local runbooks directory',
        tags: ['runbooks'],
        responses: {
          200: jsonAnswer(syncReportSchema, 'What the sync created, updated, skipped and refused'),
          502: jsonAnswer(
            errorBodySchema,
            'The Git source could not be fetched (`runbook_source_unavailable`, `runbook_source_proxy_refused`); nothing changed',
          ),
        },
      }),
      manage,
      async (c) => {
        const sync = async () => {
          if (!deps.runbookGit) return { source: 'directory', report: await deps.runbooks.syncDirectory() };
          const checkout = await fetchGitSource(deps.runbookGit.source, deps.runbookGit.proxy);
          try {
            return { source: 'git', report: await deps.runbooks.syncDirectory({ dir: checkout.dir, label: 'git' }) };
          } finally {
            checkout.cleanup();
          }
        };
        const { source, report } = await sync();
        await recordAudit(deps, c.get('principal'), {
          action: 'runbook.sync',
          target: null,
          detail: { source, created: report.created, updated: report.updated, refused: report.errors.length },
        });
        return c.json(report);
      },
    )
    .get(
      '/runbooks/:slug',
      describeRoute({
        summary: 'Runbook detail with versions',
        tags: ['runbooks'],
        responses: { 200: jsonAnswer(runbookDetailSchema, 'The runbook with its YAML and versions') },
      }),
      read,
      validate('param', slugParam),
      async (c) => c.json(await deps.runbooks.detail(c.req.valid('param').slug)),
    )
    .get(
      '/runbooks/:slug/versions/:version',
      describeRoute({
        summary: 'One saved version of a runbook, with its YAML',
        tags: ['runbooks'],
        responses: {
          200: jsonAnswer(runbookVersionSchema, 'The YAML as saved at that version'),
          404: jsonAnswer(errorBodySchema, '`runbook_not_found`, or `runbook_version_not_found` when no such version was saved'),
        },
      }),
      read,
      validate(
        'param',
        v.object({ ...slugParam.entries, version: v.pipe(v.string(), v.regex(/^[0-9]{1,9}$/, 'must be a version number'), v.transform(Number)) }),
      ),
      async (c) => {
        const { slug, version } = c.req.valid('param');
        return c.json(await deps.runbooks.version(slug, version));
      },
    )
    .post(
      '/runbooks/:slug',
      describeRoute({
        summary: 'Create or update a runbook',
        tags: ['runbooks'],
        responses: {
          200: jsonAnswer(runbookSavedSchema, 'An existing runbook, updated or unchanged'),
          201: jsonAnswer(runbookSavedSchema, 'A new runbook, created'),
        },
      }),
      manage,
      validate('param', slugParam),
      requireJson,
      validate('json', yamlBody),
      async (c) => {
        const principal = c.get('principal');
        const saved = await deps.runbooks.save(c.req.valid('param').slug, c.req.valid('json').yaml_text, principal.email ?? principal.subject);
        if (saved.changed) {
          await recordAudit(deps, principal, {
            action: 'runbook.save',
            target: { type: 'runbook', id: saved.runbook.id },
            detail: { version: saved.runbook.version, created: saved.created },
          });
        }
        return c.json(saved, saved.created ? 201 : 200);
      },
    )
    .post(
      '/runbooks/:slug/enable',
      describeRoute({ summary: 'Enable a runbook', tags: ['runbooks'], responses: { 200: jsonAnswer(runbookDetailSchema, 'The runbook, enabled') } }),
      manage,
      validate('param', slugParam),
      async (c) => c.json(await setEnabled(c.get('principal'), c.req.valid('param').slug, true)),
    )
    .post(
      '/runbooks/:slug/disable',
      describeRoute({ summary: 'Disable a runbook', tags: ['runbooks'], responses: { 200: jsonAnswer(runbookDetailSchema, 'The runbook, disabled') } }),
      manage,
      validate('param', slugParam),
      async (c) => c.json(await setEnabled(c.get('principal'), c.req.valid('param').slug, false)),
    );
}
