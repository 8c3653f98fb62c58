/**
 * Stream naming: `<category>-<id>`. Categories are listed in docs/architecture.md "Streams and event types".
 * Alert streams are keyed by a digest of `(source, external id)` so that a repeat
 * alert lands on the same stream and de-duplication is an optimistic-concurrency check.
 */
export const streams = {
  case: (caseId: string) => `case-${caseId}`,
  alert: (alertKey: string) => `alert-${alertKey}`,
  correlation: (keyDigest: string) => `correlation-${keyDigest}`,
  run: (runId: string) => `run-${runId}`,
  /** One per case task (SPEC.md "Case sub-resources": Task); its events name the case. */
  task: (taskId: string) => `task-${taskId}`,
  /** One per (case, type, normalized value): adding it twice is a no-op, as SPEC.md's de-duplication asks. */
  observable: (keyDigest: string) => `observable-${keyDigest}`,
  /** One per audit entry (domain/audit/events.ts): entries never contend with each other. */
  audit: (entryId: string) => `audit-${entryId}`,
  /** One external ticket link (domain/tickets/links.ts). */
  ticket: (linkId: string) => `ticket-${linkId}`,
  /** The record of one case's retention purge (domain/retention/events.ts). */
  retention: (caseId: string) => `retention-${caseId}`,
  /** One operator-authored action (domain/custom-actions/). */
  customAction: (customActionId: string) => `custom-action-${customActionId}`,
  /** The claim of one custom action name: its first event names the action that holds it, so a name is taken once. */
  customActionName: (name: string) => `custom-action-name-${name}`,
  /** What is installed of one integration pack, keyed by its registry id (domain/integration-packs/). */
  integrationPack: (packId: string) => `integration-pack-${packId}`,
  /** The one response policy of the install, every published version in order (domain/response-policy/). */
  responsePolicy: () => 'response-policy',
  /** One managed containment effect (domain/effects/). */
  effect: (effectId: string) => `effect-${effectId}`,
} as const;

/** The category part of a stream id (`case`, `alert`, `run`, ...). */
export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}
