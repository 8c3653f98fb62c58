/**
 * Page link reads (`case_pages`, migration 0023): the case a pager's acknowledgement
 * webhook is about (SPEC.md "Case acknowledgement").
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** The case a page of `pager` under `key` was sent for, or undefined. */
export async function findPage(db: Kysely<Database>, pager: string, key: string) {
  return db.selectFrom('case_pages').select(['case_id', 'connection']).where('pager', '=', pager).where('key', '=', key).executeTakeFirst();
}
