/**
 * What a bulk operation on cases does to one case (`POST /cases/bulk`, docs/configuration.md
 * "Bulk operations"): the command the matching single request would send, so each case
 * gets exactly its events. Pure: the route resolves owners and checks access first.
 *
 * `close` moves a case to the last of SVC_CASE_CLOSED_STATUSES (`closed` by default);
 * `reopen` moves a case in a closed status back to the initial status and leaves any
 * other case as it is. A case already where the operation would put it gets no event.
 */
import type { FieldRules } from '../custom-fields/fields.ts';
import type { CaseCommand } from './commands.ts';
import type { CaseState } from './state.ts';

/** One bulk operation on cases, with its parameters. */
export type CaseBulkOperation =
  | { operation: 'close' }
  | { operation: 'reopen' }
  | { operation: 'set_status'; params: { status: string } }
  | { operation: 'assign'; params: { owner_id: string | null } }
  | { operation: 'set_severity'; params: { severity: string } }
  | { operation: 'add_tags'; params: { tags: string[] } }
  | { operation: 'remove_tags'; params: { tags: string[] } };

/** The statuses `close` and `reopen` use: the configuration's, as their docs say. */
export type BulkStatuses = { close: string; reopen: string; closed: ReadonlySet<string> };

/**
 * The command `op` sends to a case in `state` at `now` (ISO 8601); `owner` is the resolved
 * owner of an `assign` (null unassigns); `fields` the custom field rules a status change
 * is checked against, as the single request checks them. A case that does not exist gets
 * its single command all the same, for the decider to refuse as it would refuse that request.
 */
export function bulkCaseCommand(
  op: CaseBulkOperation,
  statuses: BulkStatuses,
  state: CaseState,
  now: string,
  owner: { id: string; email: string } | null,
  fields: FieldRules,
): CaseCommand {
  const status = (to: string): CaseCommand => ({ type: 'change_status', status: to, note: null, fields, now });
  const tags = state.exists ? state.tags : [];
  switch (op.operation) {
    case 'close':
      return status(statuses.close);
    case 'reopen':
      return status(state.exists && statuses.closed.has(state.status) ? statuses.reopen : state.exists ? state.status : statuses.reopen);
    case 'set_status':
      return status(op.params.status);
    case 'assign':
      return { type: 'assign', ownerId: owner?.id ?? null, ownerEmail: owner?.email ?? null, now };
    case 'set_severity':
      return { type: 'update_case', changes: { severity: op.params.severity }, now };
    case 'add_tags':
      return { type: 'update_case', changes: { tags: [...tags, ...op.params.tags.filter((tag) => !tags.includes(tag))] }, now };
    case 'remove_tags':
      return { type: 'update_case', changes: { tags: tags.filter((tag) => !op.params.tags.includes(tag)) }, now };
  }
}
