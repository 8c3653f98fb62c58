/**
 * Counting statements in tests: `db` with the tree of every statement it runs kept in
 * `seen`, as JSON (a node's `kind` first; bigints as their digits). Begin and commit are
 * the driver's and are not seen.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';

export function recording(db: Kysely<Database>, seen: string[]): Kysely<Database> {
  return db.withPlugin({
    transformQuery: ({ node }) => {
      seen.push(JSON.stringify(node, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
}
