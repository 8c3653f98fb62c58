/**
 * Response policy events: one stream, `response-policy`, append-only. Each publish is a
 * new version carrying the whole document; the newest version is the one in force (the
 * pointer flip is the append itself).
 */
import type { Event } from '../shared/messages.ts';
import type { ResponsePolicy } from './policy.ts';

export type ResponsePolicyPublished = Event<
  'response_policy.published',
  { version: number; policy: ResponsePolicy; digest: string; by: string | null; at: string }
>;
export type ResponsePolicyEvent = ResponsePolicyPublished;

export const RESPONSE_POLICY_PUBLISHED = 'response_policy.published';
