/**
 * Case queries (SPEC.md "Cases"): list with filters, detail, timeline. Plain
 * functions taking `db` first (docs/architecture.md "Habits" 8).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CustomFieldValue } from '../../domain/custom-fields/fields.ts';
import { validate as isUuid } from 'uuid';
import type { CasesTable, Database } from '../database.ts';
import { visibleCases, type CaseScope } from './case-scope.ts';
import { cappedPage, type Page } from '../page.ts';
import { searchQuery } from '../search/search.queries.ts';

/** Cases whose custom field `name` holds `value` (a list value: holds each of its members). */
export type CustomFieldFilter = { name: string; value: CustomFieldValue };
/** Order by custom field `name`, cases without a value last. */
export type CustomFieldSort = { name: string; descending: boolean };

export type CaseFilters = {
  customFields?: CustomFieldFilter[] | undefined;
  sort?: CustomFieldSort | null | undefined;
  status?: string | undefined;
  severity?: string | undefined;
  owner?: string | undefined;
  search?: string | undefined;
  key?: string | undefined;
  limit: number;
  offset: number;
};

export type CaseRow = Selectable<CasesTable>;

export type CasePage = Page<CaseRow>;

/**
 * One page of the cases `scope` may see that were not merged into another, newest first. `owner` matches the owner's
 * email, or its id when it is a UUID; `search` matches key or title as a substring,
 * case-insensitively, or the case's search document (projections/search/) as a web search; `key` is one exact case key, upper-cased (`svc-12` finds SVC-12 and
 * not SVC-120); `customFields` keep cases holding each value, and `sort` orders by a
 * custom field first. `hasMore` says whether a further page exists.
 *
 * `total` is counted only when `totalCap` is given, and only up to it (page.ts).
 */
export async function listCases(db: Kysely<Database>, f: CaseFilters, scope: CaseScope, totalCap: number | null = null): Promise<CasePage> {
  // A merged case reads as a pointer to its target, which holds what it had: the list shows the target only.
  let q = db.selectFrom('cases').where(visibleCases(scope)).where('merged_into', 'is', null);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.owner) {
    const owner = f.owner;
    q = q.where((eb) => (isUuid(owner) ? eb.or([eb('owner_email', '=', owner), eb('owner_id', '=', owner)]) : eb('owner_email', '=', owner)));
  }
  if (f.key) q = q.where('key', '=', f.key.toUpperCase());
  // Containment, so the GIN index of migration 0040 answers it.
  for (const cf of f.customFields ?? []) q = q.where(sql<boolean>`custom_fields @> ${JSON.stringify({ [cf.name]: cf.value })}::jsonb`);
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    const words = searchQuery(f.search);
    q = q.where((eb) =>
      eb.or([
        eb('title', 'ilike', pattern),
        eb('key', 'ilike', pattern),
        eb.exists(eb.selectFrom('case_search as s').select('s.case_id').whereRef('s.case_id', '=', 'cases.id').where(sql<boolean>`s.vector @@ ${words}`)),
      ]),
    );
  }
  const filtered = q;
  return cappedPage(
    db,
    filtered,
    (take) => {
      const sort = f.sort;
      const byField = sort ? filtered.orderBy(sql`custom_fields -> ${sort.name}`, (ob) => (sort.descending ? ob.desc() : ob.asc()).nullsLast()) : filtered;
      return byField.selectAll().orderBy('created_at', 'desc').orderBy('number', 'desc').limit(take).offset(f.offset).execute();
    },
    f.limit,
    totalCap,
  );
}

/** One case whatever its scope (the worker acting for a runbook). */
export async function findCase(db: Kysely<Database>, id: string): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The `case` of a runbook's template context (SPEC.md "Template context"): id, key,
 * severity, title and tags of the case as projected; null when it is not (yet) there.
 */
export async function findCaseContext(db: Kysely<Database>, id: string): Promise<Record<string, unknown> | null> {
  const row = await db.selectFrom('cases').select(['id', 'key', 'severity', 'title', 'tags']).where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, key: row.key, severity: row.severity, title: row.title, tags: row.tags } : null;
}

/** One case if `scope` may see it: an invisible case reads exactly like an absent one. */
export async function findVisibleCase(db: Kysely<Database>, id: string, scope: CaseScope): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('id', '=', id).where(visibleCases(scope)).executeTakeFirst();
}

/** The case and every case merged into it (directly or through another merge): whose timelines and runs it reads. */
export async function caseFamily(db: Kysely<Database>, caseId: string): Promise<string[]> {
  const row = await db.selectFrom('cases').select('merged_from').where('id', '=', caseId).executeTakeFirst();
  return [caseId, ...(row?.merged_from ?? []).map((m) => m.case_id)];
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

/** The `limit` newest live comments of a case, newest first (the war-room). */
export async function recentComments(db: Kysely<Database>, caseId: string, limit: number) {
  return db
    .selectFrom('case_comments')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
