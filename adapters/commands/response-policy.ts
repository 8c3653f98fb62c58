/**
 * Response policy commands (SPEC.md "Response policy": PUT /response-policy is append-only,
 * a new version plus a pointer flip, audited `response_policy.publish`). The policy was
 * checked and normalized by the caller; it is decided against the `response-policy`
 * stream and appended with its audit entry (version, digest, counts, never parameters'
 * values) in one `appendMany`, so a version and its entry land together.
 */
import { responsePolicyDecider, type ResponsePolicyState } from '../../domain/response-policy/index.ts';
import { policyDigest, type ResponsePolicy } from '../../domain/response-policy/policy.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import { streamStatesOf } from './stream-states.ts';
import type { AuditLog } from './audit.ts';
import { actorMetadata } from './cases.ts';
import type { CustomActionAuthorship } from './custom-actions.ts';

export type ResponsePolicyCommandDeps = { store: EventStore; audit: AuditLog; now: () => Date };

export type PublishResult = { position: number | null; state: ResponsePolicyState; published: boolean };

export function createResponsePolicyCommands(deps: ResponsePolicyCommandDeps) {
  return {
    /**
     * The policy in force and its version, from the stream (version 0, the default, before
     * any publish). Every managed step asks twice, so only versions published since the
     * last ask are read (stream-states.ts), not the whole history.
     */
    inForce: async (): Promise<ResponsePolicyState> => (await streamStatesOf(deps.store).load(streams.responsePolicy(), responsePolicyDecider)).state,
    /** Publishes `policy` as the next version unless it is the one in force; 409 `response_policy_version_conflict` on a stale `baseVersion`. */
    publish: async (policy: ResponsePolicy, baseVersion: number | null, who: Pick<CustomActionAuthorship, 'actor' | 'audit'>): Promise<PublishResult> => {
      const digest = policyDigest(policy);
      const r = await decideAndAppend(
        deps.store,
        streams.responsePolicy(),
        responsePolicyDecider,
        () => ({ type: 'publish' as const, policy, digest, baseVersion, by: who.actor.email ?? who.actor.userId, now: deps.now().toISOString() }),
        actorMetadata(who.actor, 'user'),
        (events) =>
          events.map((e) =>
            deps.audit.write({
              action: 'response_policy.publish',
              actor: who.audit,
              target: { type: 'response_policy', id: String(e.data.version) },
              team: null,
              detail: {
                version: e.data.version,
                digest: e.data.digest,
                protected_targets: policy.protected_targets.length,
                automatic_grants: policy.automatic_grants.length,
                adapters: policy.adapters.map((b) => ({ effect_type: b.effect_type, target_type: b.target_type, adapter_id: b.adapter_id })),
                ttl: policy.ttl,
              },
            }),
          ),
      );
      return { position: r.position, state: r.state, published: r.events.length > 0 };
    },
  };
}

export type ResponsePolicyCommands = ReturnType<typeof createResponsePolicyCommands>;
