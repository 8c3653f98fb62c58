/**
 * Sending a case comment or status to a linked ticket (SPEC.md "Ticket mirroring": local
 * case comments and mapped statuses mirror to linked tickets), through ticket-api.ts.
 *
 * - ticket_a (Jira Cloud REST v3): a comment is `POST /rest/api/3/issue/<id>/comment
 *   {body: ADF}` (201 `{id}`); a status is a workflow transition: `GET
 *   /rest/api/3/issue/<id>/transitions`, the transition whose target (`to.name`) is the
 *   mapped status, then `POST .../transitions {transition: {id}}` (204). No such
 *   transition from where the issue stands is final (`no_transition`).
 * - ticket_b (ServiceNow Table API): both are `PATCH /api/now/table/task/<sys_id>` with
 *   `{comments}` or `{state}` (200 `{result}`); the journal entry's id is not returned.
 */
import * as v from 'valibot';
import { adf } from '../actions/notify-ticket.ts';
import { TicketApiFailure, type RemoteLink, type TicketApi } from './ticket-api.ts';

const jiraComment = v.object({ id: v.string() });
const jiraTransitions = v.object({ transitions: v.array(v.object({ id: v.string(), name: v.string(), to: v.optional(v.object({ name: v.string() })) })) });

/** Posts `text` to the ticket; the product's comment id when it says one. @throws TicketApiFailure */
export async function pushComment(api: TicketApi, link: RemoteLink, text: string): Promise<string | null> {
  if (link.provider === 'ticket_a') {
    const created = await api('POST', `rest/api/3/issue/${encodeURIComponent(link.remote_id)}/comment`, { body: { body: adf(text) }, schema: jiraComment });
    return created.id;
  }
  await api('PATCH', `api/now/table/task/${encodeURIComponent(link.remote_id)}`, { body: { comments: text }, schema: null });
  return null;
}

/** Sets the ticket's status to `remoteStatus` (a status name for ticket_a, a `state` value for ticket_b). @throws TicketApiFailure */
export async function pushStatus(api: TicketApi, link: RemoteLink, remoteStatus: string): Promise<void> {
  if (link.provider === 'ticket_b') {
    await api('PATCH', `api/now/table/task/${encodeURIComponent(link.remote_id)}`, { body: { state: remoteStatus }, schema: null });
    return;
  }
  const path = `rest/api/3/issue/${encodeURIComponent(link.remote_id)}/transitions`;
  const { transitions } = await api('GET', path, { schema: jiraTransitions });
  const transition = transitions.find((t) => t.to?.name === remoteStatus);
  if (!transition) throw new TicketApiFailure('no_transition', true);
  await api('POST', path, { body: { transition: { id: transition.id } }, schema: null });
}
