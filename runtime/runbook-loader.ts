/**
 * Loads `*.yml`/`*.yaml` runbooks from the runbooks directory at start (SPEC.md
 * "Runbook source rules"), validates each, stores valid ones in `runbooks` with a
 * version row, and keeps them in memory for the trigger matcher. An invalid file is
 * skipped with its errors reported; it never stops the service.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { parseRunbook, type RunbookCatalog } from '../domain/runbooks/parse.ts';
import type { RunbookDefinition, RunbookError } from '../domain/runbooks/model.ts';
import type { Database } from '../projections/database.ts';

export type LoadReport = { loaded: string[]; skipped: { file: string; errors: RunbookError[] }[] };

export type RunbookCatalogState = {
  list: () => RunbookDefinition[];
  get: (slug: string) => RunbookDefinition | undefined;
  alertRunbooks: () => RunbookDefinition[];
  validate: (yamlText: string) => RunbookError[];
};

export async function loadRunbooks(db: Kysely<Database>, dir: string, catalog: RunbookCatalog, now: Date): Promise<{ state: RunbookCatalogState; report: LoadReport }> {
  const report: LoadReport = { loaded: [], skipped: [] };
  const bySlug = new Map<string, RunbookDefinition>();
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => /\.ya?ml$/i.test(f)).sort();
  } catch {
    files = [];
  }
  for (const file of files) {
    const yamlText = readFileSync(join(dir, file), 'utf8');
    const parsed = parseRunbook(yamlText, catalog);
    if (!parsed.ok) {
      report.skipped.push({ file, errors: parsed.errors });
      continue;
    }
    const rb = parsed.runbook;
    if (bySlug.has(rb.id)) {
      report.skipped.push({ file, errors: [{ loc: ['id'], msg: `runbook id ${rb.id} is already defined by another file` }] });
      continue;
    }
    bySlug.set(rb.id, rb);
    report.loaded.push(rb.id);
    await storeRunbook(db, rb, yamlText, `file:${file}`, now);
  }
  const list = () => [...bySlug.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    report,
    state: {
      list,
      get: (slug) => bySlug.get(slug),
      alertRunbooks: () => list().filter((r) => r.enabled && r.trigger.type === 'alert'),
      validate: (yamlText) => {
        const parsed = parseRunbook(yamlText, catalog);
        return parsed.ok ? [] : parsed.errors;
      },
    },
  };
}

/** Upserts the runbook row and writes a version row when the text changed. */
async function storeRunbook(db: Kysely<Database>, rb: RunbookDefinition, yamlText: string, source: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('runbooks').select(['yaml_text']).where('slug', '=', rb.id).executeTakeFirst();
    if (existing?.yaml_text === yamlText) return;
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
    };
    await trx
      .insertInto('runbooks')
      .values({ slug: rb.id, ...row })
      .onConflict((oc) => oc.column('slug').doUpdateSet(row))
      .execute();
    await trx.insertInto('runbook_versions').values({ slug: rb.id, version: rb.version, yaml_text: yamlText, saved_at: now, saved_by: source }).execute();
  });
}
