/** The response policy in force, rebuilt from its stream; version 0 is the default policy (policy.ts). */
import type { ResponsePolicyEvent } from './events.ts';
import { defaultResponsePolicy, type ResponsePolicy } from './policy.ts';

export type ResponsePolicyState = { version: number; policy: ResponsePolicy; digest: string | null; publishedAt: string | null; publishedBy: string | null };

export const initialResponsePolicyState = (): ResponsePolicyState => ({
  version: 0,
  policy: defaultResponsePolicy(),
  digest: null,
  publishedAt: null,
  publishedBy: null,
});

export function evolveResponsePolicy(state: ResponsePolicyState, event: ResponsePolicyEvent): ResponsePolicyState {
  if (event.type !== 'response_policy.published') return state;
  const d = event.data;
  return { version: d.version, policy: d.policy, digest: d.digest, publishedAt: d.at, publishedBy: d.by };
}
