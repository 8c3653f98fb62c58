/**
 * Counting statements in tests: `db` with the tree of every statement it runs kept in
 * `seen`, as JSON (a node's `kind` first). Begin and commit are the driver's and are not
 * seen.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';

export function recording(db: Kysely<Database>, seen: string[]): Kysely<Database> {
  return db.withPlugin({
    transformQuery: ({ node }) => {
      seen.push(JSON.stringify(node));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
}
