/**
 * Case queries (SPEC.md "Cases"): list with filters, detail, timeline. Plain
 * functions taking `db` first (DESIGN.md habit 8).
 */
import type { Kysely, Selectable } from 'kysely';
import type { CasesTable, Database } from '../database.ts';
import { visibleCases, type CaseScope } from './case-scope.ts';

export type CaseFilters = {
  status?: string | undefined;
  severity?: string | undefined;
  owner?: string | undefined;
  search?: string | undefined;
  limit: number;
  offset: number;
};

export type CaseRow = Selectable<CasesTable>;

/**
 * The cases `scope` may see, newest first. `owner` matches the owner's id or email;
 * `search` matches key or title, case-insensitively. `total` counts within the scope.
 */
export async function listCases(db: Kysely<Database>, f: CaseFilters, scope: CaseScope): Promise<{ items: CaseRow[]; total: number }> {
  let q = db.selectFrom('cases').where(visibleCases(scope));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.owner) {
    const owner = f.owner;
    q = q.where((eb) => eb.or([eb('owner_email', '=', owner), eb(eb.cast('owner_id', 'text'), '=', owner)]));
  }
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q = q.where((eb) => eb.or([eb('title', 'ilike', pattern), eb('key', 'ilike', pattern)]));
  }
  const [items, total] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('number', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

/** One case whatever its scope (the worker acting for a runbook). */
export async function findCase(db: Kysely<Database>, id: string): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One case if `scope` may see it: an invisible case reads exactly like an absent one. */
export async function findVisibleCase(db: Kysely<Database>, id: string, scope: CaseScope): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('id', '=', id).where(visibleCases(scope)).executeTakeFirst();
}

export async function caseTimeline(db: Kysely<Database>, caseId: string) {
  return db
    .selectFrom('case_timeline')
    .select(['event_position', 'kind', 'payload', 'actor_id', 'actor_email', 'at'])
    .where('case_id', '=', caseId)
    .orderBy('event_position')
    .execute();
}

export async function caseComments(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('case_comments').selectAll().where('case_id', '=', caseId).where('deleted_at', 'is', null).orderBy('created_at').execute();
}
