/**
 * Every rule of the Ticket link decider, given-when-then on plain data (SPEC.md "Ticket
 * link", "Ticket mirroring"; docs/architecture.md "Habits" 4): the link is made once, and nothing already
 * seen or sent is recorded twice. The status mapping and echo detection it relies on are
 * in mirror.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ticketLinkDecider, type TicketLinkCommand, type TicketLinkEvent } from '../../../domain/tickets/index.ts';
import { mirrorMarker, type RemoteTicketUpdate } from '../../../domain/tickets/mirror.ts';
import { given } from '../../support/decider.ts';

const T = '2026-11-22T10:00:00.000Z';
const OURS = '3f0c8a52-5d0e-4b7e-9d67-0f5a3c1e2b4d';

const linkTicket: TicketLinkCommand = {
  type: 'link_ticket',
  linkId: 'l1',
  caseId: 'c1',
  provider: 'ticket_a',
  connection: 'jira',
  remoteId: '10001',
  remoteKey: 'ED-1',
  url: 'https://jira.example.com/browse/ED-1',
  runId: 'r1',
  stepId: 'ticket',
  now: T,
};
const linked: TicketLinkEvent = {
  type: 'ticket.linked',
  data: {
    link_id: 'l1',
    case_id: 'c1',
    provider: 'ticket_a',
    connection: 'jira',
    remote_id: '10001',
    remote_key: 'ED-1',
    url: 'https://jira.example.com/browse/ED-1',
    run_id: 'r1',
    step_id: 'ticket',
    at: T,
  },
};
const update = (over: Partial<RemoteTicketUpdate> = {}): RemoteTicketUpdate => ({
  provider: 'ticket_a',
  remote_id: '10001',
  remote_key: 'ED-1',
  status: null,
  comments: [],
  ...over,
});
const receive = (u: RemoteTicketUpdate, status: Extract<TicketLinkCommand, { type: 'receive_update' }>['status'] = null): TicketLinkCommand => ({
  type: 'receive_update',
  linkId: 'l1',
  update: u,
  status,
  commentIds: new Map([['7', 'k7']]),
  via: 'webhook',
  now: T,
});
const remoteComment = (id: string, text: string): TicketLinkEvent => ({
  type: 'ticket.remote_comment_received',
  data: {
    link_id: 'l1',
    case_id: 'c1',
    provider: 'ticket_a',
    remote_key: 'ED-1',
    comment_id: id === '7' ? 'k7' : id,
    remote_comment_id: id,
    author: 'Jo',
    text,
    remote_created_at: null,
    via: 'webhook',
    at: T,
  },
});
const statusReceived = (remoteStatus: string, applied: boolean, reason: 'applied' | 'unmapped_status'): TicketLinkEvent => ({
  type: 'ticket.remote_status_received',
  data: { link_id: 'l1', case_id: 'c1', remote_status: remoteStatus, local_status: applied ? 'resolved' : null, applied, reason, via: 'webhook', at: T },
});
const commentMirrored = (commentId: string): TicketLinkCommand => ({ type: 'record_comment_mirrored', linkId: 'l1', commentId, remoteCommentId: '99', now: T });
const statusMirrored = (remoteStatus: string): TicketLinkCommand => ({
  type: 'record_status_mirrored',
  linkId: 'l1',
  localStatus: 'resolved',
  remoteStatus,
  now: T,
});

describe('link_ticket', () => {
  it('links the ticket to the case', () => {
    const { state } = given(ticketLinkDecider, []).when(linkTicket).then([linked]);
    expect(state).toMatchObject({ caseId: 'c1', provider: 'ticket_a', remoteKey: 'ED-1', remoteStatus: null });
  });

  it('refuses to link a link twice', () => {
    const error = given(ticketLinkDecider, [linked]).when(linkTicket).thenThrows('ticket_link_exists', 409);
    expect(error.params).toEqual({ link_id: 'l1' });
  });
});

describe('a command on a link never made', () => {
  it.each<TicketLinkCommand>([
    receive(update({ comments: [{ id: '7', text: 'hi', author: 'Jo', created_at: null }] })),
    commentMirrored('k1'),
    statusMirrored('Done'),
  ])('decides nothing ($type)', (command) => {
    given(ticketLinkDecider, []).when(command).then([]);
  });
});

describe('receive_update', () => {
  it('takes each new remote comment once, under the case comment id chosen for it, and skips our own echo', () => {
    const comments = [
      { id: '7', text: 'looking', author: 'Jo', created_at: null },
      { id: '8', text: 'more', author: 'Jo', created_at: null },
      { id: '9', text: `from svc ${mirrorMarker(OURS)}`, author: 'svc', created_at: null },
    ];
    const { events } = given(ticketLinkDecider, [linked])
      .when(receive(update({ comments })))
      .then([remoteComment('7', 'looking'), remoteComment('8', 'more')]);
    given(ticketLinkDecider, [linked, ...events])
      .when(receive(update({ comments })))
      .then([]);
  });

  it('records a new remote status with its outcome, applied or not', () => {
    given(ticketLinkDecider, [linked])
      .when(receive(update({ status: 'Done' }), { remoteStatus: 'Done', localStatus: 'resolved', reason: 'applied' }))
      .then([statusReceived('Done', true, 'applied')]);
    given(ticketLinkDecider, [linked])
      .when(receive(update({ status: 'Blocked' }), { remoteStatus: 'Blocked', localStatus: null, reason: 'unmapped_status' }))
      .then([statusReceived('Blocked', false, 'unmapped_status')]);
  });

  it('counts an already_in_status outcome as applied', () => {
    given(ticketLinkDecider, [linked])
      .when(receive(update({ status: 'Done' }), { remoteStatus: 'Done', localStatus: 'resolved', reason: 'already_in_status' }))
      .thenMatch([{ type: 'ticket.remote_status_received', data: { applied: true, reason: 'already_in_status' } }]);
  });

  it('decides nothing for a status the link recorded meanwhile, or one it set itself', () => {
    const plan = { remoteStatus: 'Done', localStatus: 'resolved', reason: 'applied' } as const;
    given(ticketLinkDecider, [linked, statusReceived('Done', true, 'applied')])
      .when(receive(update({ status: 'Done' }), plan))
      .then([]);
    const { events } = given(ticketLinkDecider, [linked])
      .when(statusMirrored('Done'))
      .thenMatch([{ type: 'ticket.status_mirrored' }]);
    given(ticketLinkDecider, [linked, ...events])
      .when(receive(update({ status: 'Done' }), plan))
      .then([]);
  });
});

describe('outbound mirroring', () => {
  it('records a case comment posted to the ticket once', () => {
    const { events } = given(ticketLinkDecider, [linked])
      .when(commentMirrored('k1'))
      .then([{ type: 'ticket.comment_mirrored', data: { link_id: 'l1', case_id: 'c1', comment_id: 'k1', remote_comment_id: '99', at: T } }]);
    given(ticketLinkDecider, [linked, ...events])
      .when(commentMirrored('k1'))
      .then([]);
  });

  it('records a status set on the ticket once, and again after the ticket moved', () => {
    const { events } = given(ticketLinkDecider, [linked])
      .when(statusMirrored('Done'))
      .then([{ type: 'ticket.status_mirrored', data: { link_id: 'l1', case_id: 'c1', local_status: 'resolved', remote_status: 'Done', at: T } }]);
    given(ticketLinkDecider, [linked, ...events])
      .when(statusMirrored('Done'))
      .then([]);
    given(ticketLinkDecider, [linked, ...events, statusReceived('Reopened', false, 'unmapped_status')])
      .when(statusMirrored('Done'))
      .thenMatch([{ type: 'ticket.status_mirrored' }]);
  });
});
