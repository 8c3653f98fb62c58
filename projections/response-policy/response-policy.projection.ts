/**
 * Response policy versions read model (`response_policy_versions`, migration 0029) from
 * the `response-policy` stream: one row per `response_policy.published`, keyed by its
 * version, so applying an event again changes nothing.
 */
import { RESPONSE_POLICY_PUBLISHED, type ResponsePolicyPublished } from '../../domain/response-policy/index.ts';
import type { Projection } from '../projector.ts';

export const responsePolicyProjection: Projection = {
  name: 'response_policy',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (recorded.type !== RESPONSE_POLICY_PUBLISHED) continue;
      const d = recorded.data as ResponsePolicyPublished['data'];
      await trx
        .insertInto('response_policy_versions')
        .values({ version: d.version, policy: JSON.stringify(d.policy), digest: d.digest, published_at: d.at, published_by: d.by })
        .onConflict((oc) => oc.column('version').doNothing())
        .execute();
    }
  },
};
