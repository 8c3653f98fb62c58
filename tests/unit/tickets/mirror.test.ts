/** The status mapping and comment de-duplication of inbound ticket mirroring (domain/tickets/mirror.ts). */
import { describe, expect, it } from 'vitest';
import { mirrorMarker, newRemoteComments, planRemoteStatus, polledStatusIsCurrent } from '../../../domain/tickets/mirror.ts';
import { initialTicketLinkState } from '../../../domain/tickets/state.ts';

const theCase = (status: string) => ({ status, statuses: ['new', 'in_progress', 'resolved', 'closed'], closedStatuses: ['resolved', 'closed'] });
const map = { 'In Progress': 'in_progress', Done: 'resolved', Closed: 'closed', Weird: 'archived', Reopened: 'in_progress' };

describe('planRemoteStatus', () => {
  it('applies a new mapped status, and says why it does not otherwise', () => {
    const state = initialTicketLinkState();
    expect(planRemoteStatus(state, 'In Progress', map, theCase('new'))).toEqual({ remoteStatus: 'In Progress', localStatus: 'in_progress', reason: 'applied' });
    expect(planRemoteStatus(state, 'Blocked', map, theCase('new'))).toMatchObject({ localStatus: null, reason: 'unmapped_status' });
    expect(planRemoteStatus(state, 'toString', map, theCase('new'))).toMatchObject({ reason: 'unmapped_status' });
    expect(planRemoteStatus(state, 'Weird', map, theCase('new'))).toMatchObject({ reason: 'unknown_local_status' });
    expect(planRemoteStatus(state, 'In Progress', map, theCase('in_progress'))).toMatchObject({ reason: 'already_in_status' });
    expect(planRemoteStatus(state, 'Reopened', map, theCase('resolved'))).toMatchObject({ reason: 'case_closed' });
    expect(planRemoteStatus(state, 'Closed', map, theCase('resolved'))).toMatchObject({ reason: 'applied' });
    expect(planRemoteStatus(state, null, map, theCase('new'))).toBeNull();
    expect(planRemoteStatus({ ...state, remoteStatus: 'Done' }, 'Done', map, theCase('new'))).toBeNull();
  });
});

describe('newRemoteComments', () => {
  it('keeps each comment id once and drops our own mirrored echoes', () => {
    const state = { ...initialTicketLinkState(), seenComments: new Set(['1']) };
    const comments = [
      { id: '1', text: 'seen', author: null, created_at: null },
      { id: '2', text: 'new', author: null, created_at: null },
      { id: '2', text: 'new again', author: null, created_at: null },
      { id: '3', text: `from svc ${mirrorMarker('3f0c8a52-5d0e-4b7e-9d67-0f5a3c1e2b4d')}`, author: null, created_at: null },
    ];
    expect(newRemoteComments(state, comments).map((c) => c.id)).toEqual(['2']);
  });
});

describe('polledStatusIsCurrent', () => {
  it('takes a reading only when no status was recorded after it and none of ours is on its way', () => {
    expect(polledStatusIsCurrent(40, [12, 40], false)).toBe(true);
    expect(polledStatusIsCurrent(40, [], false)).toBe(true);
    expect(polledStatusIsCurrent(40, [12, 41], false)).toBe(false);
    expect(polledStatusIsCurrent(40, [12], true)).toBe(false);
  });
});
