/**
 * Response policy commands (SPEC.md "Response policy": PUT /response-policy). The policy
 * comes in checked and normalized (policy.ts), with its digest, the version the author
 * edited (null: whatever is current) and the time, so deciding is pure.
 */
import type { ResponsePolicy } from './policy.ts';

export type ResponsePolicyCommand = {
  type: 'publish';
  policy: ResponsePolicy;
  /** SHA-256 of the policy's canonical JSON (policyDigest). */
  digest: string;
  /** The version the author read and edited; null publishes over whatever is current. */
  baseVersion: number | null;
  by: string | null;
  now: string;
};
