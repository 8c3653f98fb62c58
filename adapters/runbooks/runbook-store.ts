/**
 * Stored runbooks (SPEC.md "Runbook", "Runbooks and runs", "Versioning"). The
 * `runbooks` table is the source of truth; files in the runbooks directory and
 * `POST /runbooks/<slug>` are two ways to write it, under one version rule:
 *
 * - a new slug is created; the same YAML text again changes nothing (no version row);
 * - otherwise the YAML's integer `version` must be above the stored one: a lower one is
 *   refused (`runbook_version_decrease`), an equal one with other text too
 *   (`runbook_version_not_bumped`);
 * - every accepted save writes a `runbook_versions` row and takes the YAML's `enabled`;
 *   enable/disable flip the stored flag until the next save;
 * - a save computes `next_fire_at` for a schedule trigger from the save time.
 *
 * A runbook whose steps use `detector.*` or `pipeline.*` while that product is not
 * installed is hidden (absent from list, detail, triggers and manual runs) but kept.
 * Readers on the hot path (`list`, `get`, `alertRunbooks`) use an in-memory copy that
 * every write in this process refreshes and `refresh()` reloads (boot calls it
 * periodically, so other processes' writes show up).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import type { RunbookCatalog } from '../../domain/runbooks/catalog.ts';
import type { RunbookDefinition, RunbookError } from '../../domain/runbooks/model.ts';
import { parseRunbook } from '../../domain/runbooks/parse.ts';
import { nextFireAt } from '../../domain/runbooks/schedule.ts';
import { conflict, DomainError, notFound, unprocessable, ValidationFailed } from '../../domain/shared/errors.ts';
import type { Database } from '../../projections/database.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';
import type { RunbookDetail, RunbookSaved, RunbookSummary, RunbookVersion, SyncReport } from './runbook-answers.ts';

export type { SyncReport };

/** Paths under /runbooks/ that are endpoints, or the console's page for a new runbook (`/runbooks/new`), never runbook slugs. */
const RESERVED_SLUGS = new Set(['validate', 'sync', 'new']);

type Outcome = 'created' | 'updated' | 'unchanged';

export type RunbookStoreDeps = {
  db: Kysely<Database>;
  actions: ActionRegistry;
  templates: Pick<RunbookCatalog, 'checkTemplate' | 'checkCondition'>;
  /** The local runbooks directory (SVC_RUNBOOKS_DIR). */
  dir: string;
  now: () => Date;
};

export function createRunbookStore(deps: RunbookStoreDeps) {
  const { db, actions } = deps;
  const catalog = (ignoreProducts: boolean): RunbookCatalog => ({
    actionProblem: (name) => actions.stepProblem(name, ignoreProducts),
    checkInput: actions.checkInput,
    checkTemplate: deps.templates.checkTemplate,
    checkCondition: deps.templates.checkCondition,
  });
  const strict = catalog(false);
  const lenient = catalog(true);
  /** The products a runbook needs that are not installed, sorted. */
  const missingProducts = (rb: RunbookDefinition): string[] =>
    [
      ...new Set(
        rb.steps.map((s) => (s.action === null ? null : actions.productOf(s.action))).filter((p): p is string => p !== null && !actions.productInstalled(p)),
      ),
    ].sort();

  let cache = new Map<string, RunbookDefinition>();

  const visibleRows = async (slug?: string) => {
    let query = db.selectFrom('runbooks').selectAll().orderBy('slug');
    if (slug !== undefined) query = query.where('slug', '=', slug);
    const rows = await query.execute();
    return rows
      .map((row) => ({ row, rb: { ...(row.definition as unknown as RunbookDefinition), enabled: row.enabled } }))
      .filter(({ rb }) => missingProducts(rb).length === 0);
  };

  const refresh = async (): Promise<void> => {
    cache = new Map((await visibleRows()).map(({ rb }) => [rb.id, rb]));
  };

  const summary = (rb: RunbookDefinition, row: { source: string; updated_at: Date; next_fire_at: Date | null }): RunbookSummary => ({
    id: rb.id,
    name: rb.name,
    description: rb.description,
    version: rb.version,
    enabled: rb.enabled,
    trigger: rb.trigger,
    source: row.source,
    updated_at: new Date(row.updated_at).toISOString(),
    next_fire_at: row.next_fire_at === null ? null : new Date(row.next_fire_at).toISOString(),
  });

  /** `yamlText` as the definition stored under `slug`; 422 ValidationFailed at `['body', 'yaml_text', ...loc]` when invalid or its id is not `slug`. */
  const parseForSlug = (slug: string, yamlText: string): RunbookDefinition => {
    const parsed = parseRunbook(yamlText, strict);
    const errors = parsed.ok ? [] : parsed.errors;
    if (parsed.ok && parsed.runbook.id !== slug) errors.push({ loc: ['id'], msg: `must equal the slug in the path ('${slug}')` });
    if (RESERVED_SLUGS.has(slug)) errors.push({ loc: ['id'], msg: `'${slug}' is reserved` });
    if (!parsed.ok || errors.length > 0) {
      throw new ValidationFailed(errors.map((e) => ({ loc: ['body', 'yaml_text', ...e.loc.map(String)], msg: e.msg, type: 'runbook_invalid' })));
    }
    return parsed.runbook;
  };

  const detail = async (slug: string): Promise<RunbookDetail> => {
    const [found] = await visibleRows(slug);
    if (!found) throw notFound('runbook_not_found', 'runbook not found', { slug });
    const versions = await db
      .selectFrom('runbook_versions')
      .select(['version', 'saved_at', 'saved_by'])
      .where('slug', '=', slug)
      .orderBy('saved_at', 'desc')
      .orderBy('version', 'desc')
      .execute();
    return {
      ...found.rb,
      ...summary(found.rb, found.row),
      yaml_text: found.row.yaml_text,
      versions: versions.map((v) => ({ version: v.version, saved_at: new Date(v.saved_at).toISOString(), saved_by: v.saved_by })),
    };
  };

  /** Applies the version rule and writes; throws DomainError 422 for a refused version. */
  const upsert = async (trx: Transaction<Database>, rb: RunbookDefinition, yamlText: string, source: string): Promise<Outcome> => {
    const now = deps.now();
    const existing = await trx.selectFrom('runbooks').select(['version', 'yaml_text']).where('slug', '=', rb.id).forUpdate().executeTakeFirst();
    if (existing?.yaml_text === yamlText) return 'unchanged';
    if (existing && rb.version < existing.version) {
      throw unprocessable('runbook_version_decrease', `version ${rb.version} is below the stored version ${existing.version}`, {
        id: rb.id,
        version: rb.version,
        stored_version: existing.version,
      });
    }
    if (existing && rb.version === existing.version) {
      throw unprocessable('runbook_version_not_bumped', `version ${rb.version} is already stored with other content; bump version to save a change`, {
        id: rb.id,
        version: rb.version,
        stored_version: existing.version,
      });
    }
    const row = {
      version: rb.version,
      name: rb.name,
      description: rb.description,
      enabled: rb.enabled,
      trigger_type: rb.trigger.type,
      definition: JSON.stringify(rb),
      yaml_text: yamlText,
      source,
      updated_at: now,
      next_fire_at: nextFireAt(rb.trigger, now),
    };
    if (existing) {
      await trx.updateTable('runbooks').set(row).where('slug', '=', rb.id).execute();
    } else {
      const inserted = await trx
        .insertInto('runbooks')
        .values({ slug: rb.id, ...row })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returning('slug')
        .executeTakeFirst();
      if (!inserted) throw conflict('runbook_save_conflict', 'the runbook was created concurrently; retry', { id: rb.id });
    }
    await trx.insertInto('runbook_versions').values({ slug: rb.id, version: rb.version, yaml_text: yamlText, saved_at: now, saved_by: source }).execute();
    return existing ? 'updated' : 'created';
  };

  return {
    refresh,
    /** False for a runbook that needs a product that is not installed (hidden, cannot run). */
    runnable: (rb: RunbookDefinition): boolean => missingProducts(rb).length === 0,
    /** Visible runbooks, sorted by id (cached). */
    list: (): RunbookDefinition[] => [...cache.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    /** A visible runbook (cached). */
    get: (slug: string): RunbookDefinition | undefined => cache.get(slug),
    /** Visible, enabled runbooks with an alert trigger (cached). */
    alertRunbooks: (): RunbookDefinition[] => [...cache.values()].filter((r) => r.enabled && r.trigger.type === 'alert'),
    /** SPEC.md POST /runbooks/validate: every problem, `[]` when valid. */
    validate: (yamlText: string): RunbookError[] => {
      const parsed = parseRunbook(yamlText, strict);
      return parsed.ok ? [] : parsed.errors;
    },
    /** Visible runbooks with their stored state, read from the database. */
    summaries: async (): Promise<RunbookSummary[]> => (await visibleRows()).map(({ row, rb }) => summary(rb, row)),
    /** Errors: 404 `runbook_not_found` (also for a hidden one). */
    detail,
    /**
     * POST /runbooks/<slug>: validates `yamlText` (422 ValidationFailed at
     * `['body', 'yaml_text', ...loc]`, also when its id is not `slug`), then applies the
     * version rule (422 `runbook_version_decrease` / `runbook_version_not_bumped`).
     */
    save: async (slug: string, yamlText: string, savedBy: string): Promise<RunbookSaved> => {
      const runbook = parseForSlug(slug, yamlText);
      const outcome = await db.transaction().execute((trx) => upsert(trx, runbook, yamlText, `api:${savedBy}`));
      await refresh();
      return { created: outcome === 'created', changed: outcome !== 'unchanged', runbook: await detail(slug) };
    },
    /**
     * A draft run from the editor (docs/console.md "Runbook authoring"): `yamlText` checked as a
     * save under `slug` would check it, nothing stored. Errors: as `save`'s validation.
     */
    draft: (slug: string, yamlText: string): RunbookDefinition => parseForSlug(slug, yamlText),
    /** `GET /runbooks/<slug>/versions/<version>`: the YAML saved as that version. Errors: 404 `runbook_not_found`, `runbook_version_not_found`. */
    version: async (slug: string, version: number): Promise<RunbookVersion> => {
      const [found] = await visibleRows(slug);
      if (!found) throw notFound('runbook_not_found', 'runbook not found', { slug });
      const row = await db
        .selectFrom('runbook_versions')
        .select(['version', 'saved_at', 'saved_by', 'yaml_text'])
        .where('slug', '=', slug)
        .where('version', '=', version)
        .orderBy('saved_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!row) throw notFound('runbook_version_not_found', `runbook ${slug} has no version ${version}`, { slug, version });
      return { version: row.version, saved_at: new Date(row.saved_at).toISOString(), saved_by: row.saved_by, yaml_text: row.yaml_text };
    },
    /**
     * POST /runbooks/<slug>/enable|disable. Enabling a schedule runbook restarts its
     * clock from now, so a long-disabled one does not fire at once for a stale time.
     * Errors: 404 `runbook_not_found`.
     */
    setEnabled: async (slug: string, enabled: boolean): Promise<RunbookDetail> => {
      const [found] = await visibleRows(slug);
      if (!found) throw notFound('runbook_not_found', 'runbook not found', { slug });
      const next = enabled && !found.row.enabled ? nextFireAt(found.rb.trigger, deps.now()) : found.row.next_fire_at;
      await db.updateTable('runbooks').set({ enabled, next_fire_at: next }).where('slug', '=', slug).execute();
      await refresh();
      return detail(slug);
    },
    /**
     * Loads every `*.yml` / `*.yaml` file of the runbooks directory, or of `source.dir`
     * (a Git checkout; `source.label` prefixes the stored source, `file` by default), under
     * the version rule; a missing directory has none; never throws for a bad file. A file needing a
     * product that is not installed is skipped, not stored.
     */
    syncDirectory: async (source: { dir: string; label: string } = { dir: deps.dir, label: 'file' }): Promise<SyncReport> => {
      const report: SyncReport = { created: [], updated: [], skipped: [], errors: [] };
      let files: string[];
      try {
        files = readdirSync(source.dir)
          .filter((f) => /\.ya?ml$/i.test(f))
          .sort();
      } catch {
        files = [];
      }
      const seen = new Map<string, string>();
      for (const file of files) {
        const yamlText = readFileSync(join(source.dir, file), 'utf8');
        const parsed = parseRunbook(yamlText, lenient);
        if (!parsed.ok) {
          report.errors.push({ file, errors: parsed.errors });
          continue;
        }
        const rb = parsed.runbook;
        const other = seen.get(rb.id);
        if (other !== undefined) {
          report.errors.push({ file, errors: [{ loc: ['id'], msg: `runbook id ${rb.id} is already defined by ${other}` }] });
          continue;
        }
        seen.set(rb.id, file);
        const missing = missingProducts(rb);
        if (missing.length > 0) {
          report.skipped.push({ file, id: rb.id, reason: 'product_not_installed', detail: `needs ${missing.join(', ')} (SVC_INSTALLED_PRODUCTS)` });
          continue;
        }
        try {
          const outcome = await db.transaction().execute((trx) => upsert(trx, rb, yamlText, `${source.label}:${file}`));
          if (outcome === 'unchanged') report.skipped.push({ file, id: rb.id, reason: 'unchanged', detail: 'same text as stored' });
          else report[outcome].push(rb.id);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          report.errors.push({ file, errors: [{ loc: ['version'], msg: error.message }] });
        }
      }
      await refresh();
      return report;
    },
  };
}

export type RunbookStore = ReturnType<typeof createRunbookStore>;
