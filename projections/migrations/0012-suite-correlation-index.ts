/**
 * `GET /suite-context/<id>` reads alerts by their suite-wide correlation id (SPEC.md
 * "Cross-product resolvers").
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('create index alerts_suite_correlation on alerts (suite_correlation_id) where suite_correlation_id is not null').execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop index alerts_suite_correlation').execute(db);
}
