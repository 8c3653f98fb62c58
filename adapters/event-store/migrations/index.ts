/**
 * The event store's own schema migrations: the SQL that reads the `events` table lives
 * beside the store that owns it (issue 20). runtime/schema-migrations.ts merges them
 * with the read models' migrations into one ordered list; the `events` table itself
 * was created by the first migration, before this split.
 */
import type { Migration } from 'kysely';
import * as appendLock from './0020-append-lock.ts';
import * as appendLockLatestVersion from './0038-append-lock-latest-version.ts';
import * as appendInOneStatement from './0039-append-in-one-statement.ts';
import * as appendSetBased from './0040-append-set-based.ts';

export const eventStoreMigrations: Record<string, Migration> = {
  '0020-append-lock': appendLock,
  '0038-append-lock-latest-version': appendLockLatestVersion,
  '0039-append-in-one-statement': appendInOneStatement,
  '0040-append-set-based': appendSetBased,
};
