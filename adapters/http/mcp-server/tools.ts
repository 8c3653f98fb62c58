/**
 * The tools of the MCP tool server (SPEC.md "Peer endpoints", `/peer/v1/mcp`): each is one
 * REST operation of this service, named `svc_<verb>_<thing>`. A call runs that very route
 * in process (dispatch.ts), so its permission, scope, team and case-visibility checks are
 * the route's own; its input schema is the route's, from `/openapi.json` (input-schema.ts).
 * A tool whose method is not GET changes something and requires `idempotency_key`.
 */

export type ToolRoute = {
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Path template below SVC_BASE_PATH, as the route is mounted (`/cases/:id`). */
  path: string;
};

/** Whether `tool` changes something: it then takes, and requires, an `idempotency_key`. */
export const isEffectful = (tool: ToolRoute): boolean => tool.method !== 'GET';

const read = (name: string, path: string, description: string): ToolRoute => ({ name, description, method: 'GET', path });
const effect = (name: string, method: 'POST' | 'PUT', path: string, description: string): ToolRoute => ({ name, description, method, path });

/** Every tool, in the order `tools/list` gives them. */
export const toolRoutes: readonly ToolRoute[] = [
  read('svc_list_cases', '/cases', 'List the cases you can see (filters status, severity, owner, search; paging limit, offset).'),
  read('svc_get_case', '/cases/:id', 'One case by id, with its acknowledgement clock. A case you cannot see answers case_not_found.'),
  read('svc_get_case_timeline', '/cases/:id/timeline', 'The chronological timeline of a case.'),
  read('svc_list_alerts', '/alerts', 'The alert inbox you can see (filters status, severity, source; paging limit, offset).'),
  read('svc_get_alert', '/alerts/:id', 'One alert: its fields, the payload it arrived with, its observables and the case holding it.'),
  read('svc_list_runbooks', '/runbooks', 'The runbooks of this install.'),
  read('svc_get_runbook', '/runbooks/:slug', 'One runbook by slug, with its YAML and versions.'),
  read('svc_list_runs', '/runs', 'Runbook runs you can see, newest first (filters status, case_id; paging limit, offset).'),
  read('svc_get_run', '/runs/:id', 'One run: steps, approval gates, action log and chain badge.'),
  read('svc_get_run_log', '/runs/:id/log', "A run's hash-chained action log."),
  read('svc_list_approvals', '/approvals', 'Approval gates waiting for a decision on runs you can see, soonest deadline first.'),
  effect('svc_comment_case', 'POST', '/cases/:id/comments', 'Comment on a case (text; an @<email> mention notifies that person).'),
  effect('svc_update_case', 'PUT', '/cases/:id', 'Change case fields: title, description, severity, tags, private, attack_techniques.'),
  effect('svc_set_case_status', 'POST', '/cases/:id/status', 'Change the status of a case, with an optional note.'),
  effect('svc_assign_case', 'POST', '/cases/:id/assign', 'Assign the case owner (owner_id, a user id), or unassign it (owner_id null).'),
  effect('svc_acknowledge_case', 'POST', '/cases/:id/acknowledge', 'Acknowledge a case; the first acknowledgement stays.'),
  effect('svc_add_observable', 'POST', '/cases/:id/observables', 'Add an observable (type, value) to a case; de-duplicated on its normalized value.'),
  effect('svc_escalate_alert', 'POST', '/alerts/:id/escalate', 'Open a new case holding the alert.'),
  effect('svc_link_alert', 'POST', '/alerts/:id/link', 'Put the alert into a case (case_id), moving it out of another.'),
  effect('svc_dismiss_alert', 'POST', '/alerts/:id/dismiss', 'Dismiss an alert that is in no case, with an optional reason.'),
  effect(
    'svc_run_runbook',
    'POST',
    '/cases/:id/runbooks/:slug/run',
    'Queue a manual run of a runbook (slug) on a case (id), optionally as a dry run with inputs.',
  ),
  effect('svc_approve_run', 'POST', '/runs/:id/approve', 'Approve the open approval gate (step_id) of a run, with an optional note.'),
  effect('svc_deny_run', 'POST', '/runs/:id/deny', 'Deny the open approval gate (step_id) of a run; the run ends denied.'),
  effect('svc_cancel_run', 'POST', '/runs/:id/cancel', 'Cancel a run that has not finished.'),
];
