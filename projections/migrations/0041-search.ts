/**
 * Full-text search (docs/configuration.md "Search"; issue 50): one search document per
 * case and per alert, its text and its `tsvector` (text search configuration `english`),
 * kept by the search projection (projections/search/search.projection.ts), each with a GIN
 * index. Apart from `cases` and `alerts`, so no list or detail read carries the text.
 * Existing rows are filled here, so an upgraded install searches its history.
 */
import { sql, type Kysely } from 'kysely';
import { writeAlertDocuments, writeCaseDocuments } from '../search/documents.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table case_search (case_id uuid primary key, text text not null, vector tsvector not null)`.execute(db);
  await sql`create table alert_search (alert_id uuid primary key, text text not null, vector tsvector not null)`.execute(db);
  await sql`create index case_search_vector on case_search using gin (vector)`.execute(db);
  await sql`create index alert_search_vector on alert_search using gin (vector)`.execute(db);
  await writeCaseDocuments(db, null);
  await writeAlertDocuments(db, null);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table alert_search`.execute(db);
  await sql`drop table case_search`.execute(db);
}
