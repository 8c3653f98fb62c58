/**
 * Response policy decisions (SPEC.md "Response policy": append-only, a new version per
 * publish). A publish whose `baseVersion` is not the version in force is refused 409
 * `response_policy_version_conflict` (someone published since the author read it); a
 * publish of the document in force (same digest) decides nothing, so a repeated PUT
 * makes no new version.
 */
import { conflict } from '../shared/errors.ts';
import type { ResponsePolicyCommand } from './commands.ts';
import type { ResponsePolicyEvent } from './events.ts';
import type { ResponsePolicyState } from './state.ts';

export function decideResponsePolicy(command: ResponsePolicyCommand, state: ResponsePolicyState): ResponsePolicyEvent[] {
  if (command.baseVersion !== null && command.baseVersion !== state.version) {
    throw conflict('response_policy_version_conflict', `version ${state.version} is in force, not ${command.baseVersion}: read it again`, {
      current_version: state.version,
      base_version: command.baseVersion,
    });
  }
  if (command.digest === state.digest) return [];
  return [
    {
      type: 'response_policy.published',
      data: { version: state.version + 1, policy: command.policy, digest: command.digest, by: command.by, at: command.now },
    },
  ];
}
