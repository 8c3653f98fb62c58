/**
 * What search reads of a case and of an alert (docs/configuration.md "Search"; issue 50):
 * each document is its text and its `tsvector` under the `english` text search
 * configuration, weighted so a match in a title outranks one in a comment:
 * - a case: A its key and title; B its description, hand-added observable values and
 *   custom field values; C its task titles, comments and task comments. The observables
 *   an alert brings are in that alert's document.
 * - an alert: A its title; B its observable values.
 * Each part is cut to a bound so no document nears the 1 MB a `tsvector` may hold.
 *
 * The fragments are lateral subqueries over the row being read, aliased `c` (cases) or
 * `a` (alerts), answering one row `(text, vector)`.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

/** The text search configuration of every document and query. */
export const SEARCH_CONFIG = 'english';

const caseDocumentSql = sql`(
  select concat_ws(' ', p.heading, p.facts, p.talk) as text,
         setweight(to_tsvector('english', p.heading), 'A') || setweight(to_tsvector('english', coalesce(p.facts, '')), 'B')
           || setweight(to_tsvector('english', coalesce(p.talk, '')), 'C') as vector
    from (select left(c.key || ' ' || c.title, 2000) as heading,
                 nullif(left(concat_ws(' ', c.description,
                   (select string_agg(o.value, ' ' order by o.created_at) from case_observables o where o.case_id = c.id and o.removed_at is null),
                   (select string_agg(f.value, ' ' order by f.key) from jsonb_each_text(c.custom_fields) f)), 200000), '') as facts,
                 nullif(left(concat_ws(' ',
                   (select string_agg(t.title, ' ' order by t.position) from case_tasks t where t.case_id = c.id),
                   (select string_agg(m.body, ' ' order by m.created_at) from case_comments m where m.case_id = c.id and m.deleted_at is null),
                   (select string_agg(m.body, ' ' order by m.created_at) from case_task_comments m where m.case_id = c.id and m.deleted_at is null)), 400000), '') as talk) p
)`;

const alertDocumentSql = sql`(
  select concat_ws(' ', a.title, p.values) as text,
         setweight(to_tsvector('english', a.title), 'A') || setweight(to_tsvector('english', coalesce(p.values, '')), 'B') as vector
    from (select left((select string_agg(o.value, ' ' order by o.type, o.normalized) from alert_observables o where o.alert_id = a.id), 100000) as values) p
)`;

/** Writes the documents of cases `ids` (every case when null) into `case_search`. */
export async function writeCaseDocuments(db: QueryExecutorProvider, ids: readonly string[] | null): Promise<void> {
  if (ids?.length === 0) return;
  const which = ids === null ? sql`` : sql`where c.id in (${sql.join(ids)})`;
  await sql`insert into case_search (case_id, text, vector)
    select c.id, d.text, d.vector from cases c cross join lateral ${caseDocumentSql} d ${which}
    on conflict (case_id) do update set text = excluded.text, vector = excluded.vector`.execute(db);
}

/**
 * Writes the documents of cases `ids` that were opened a moment ago and hold nothing but
 * their opening: their key, title and description, without the reads of comments, tasks,
 * observables and custom fields they cannot have yet (the same text and vector the full
 * document gives them), so opening a case costs intake little.
 */
export async function writeOpenedCaseDocuments(db: QueryExecutorProvider, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`insert into case_search (case_id, text, vector)
    select c.id, concat_ws(' ', p.heading, p.facts),
           setweight(to_tsvector('english', p.heading), 'A') || setweight(to_tsvector('english', coalesce(p.facts, '')), 'B') || setweight(to_tsvector('english', ''), 'C')
      from cases c cross join lateral (select left(c.key || ' ' || c.title, 2000) as heading, nullif(left(coalesce(c.description, ''), 200000), '') as facts) p
      where c.id in (${sql.join(ids)})
    on conflict (case_id) do update set text = excluded.text, vector = excluded.vector`.execute(db);
}

/** Writes the documents of alerts `ids` (every alert when null) into `alert_search`. */
export async function writeAlertDocuments(db: QueryExecutorProvider, ids: readonly string[] | null): Promise<void> {
  if (ids?.length === 0) return;
  const which = ids === null ? sql`` : sql`where a.id in (${sql.join(ids)})`;
  await sql`insert into alert_search (alert_id, text, vector)
    select a.id, d.text, d.vector from alerts a cross join lateral ${alertDocumentSql} d ${which}
    on conflict (alert_id) do update set text = excluded.text, vector = excluded.vector`.execute(db);
}
