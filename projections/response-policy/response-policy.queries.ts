/** Response policy queries (SPEC.md "Response policy"): the version in force and the history, newest first. */
import type { Kysely } from 'kysely';
import type { ResponsePolicy } from '../../domain/response-policy/policy.ts';
import type { Database } from '../database.ts';

export type ResponsePolicyVersionView = { version: number; policy: ResponsePolicy; digest: string; published_at: string; published_by: string | null };

const view = (r: {
  version: number;
  policy: unknown;
  digest: string;
  published_at: Date | string;
  published_by: string | null;
}): ResponsePolicyVersionView => ({
  version: r.version,
  policy: r.policy as ResponsePolicy,
  digest: r.digest,
  published_at: new Date(r.published_at).toISOString(),
  published_by: r.published_by,
});

/** The newest published version, or undefined before the first publish. */
export async function currentResponsePolicy(db: Kysely<Database>): Promise<ResponsePolicyVersionView | undefined> {
  const row = await db.selectFrom('response_policy_versions').selectAll().orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row && view(row);
}

/** Every published version, newest first. */
export async function responsePolicyVersions(db: Kysely<Database>): Promise<ResponsePolicyVersionView[]> {
  return (await db.selectFrom('response_policy_versions').selectAll().orderBy('version', 'desc').execute()).map(view);
}
