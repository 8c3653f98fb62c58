/**
 * The home section's pure parts (SPEC.md "Peer endpoints" `GET /peer/v1/home`): which owned
 * cases are items, the strip's shape, and the setup steps from the milestone stamps.
 */
import { describe, expect, it } from 'vitest';
import { homeItems, homeStrip, setupSteps } from '../../../adapters/http/peer-home.ts';
import { defaultPermissionMatrix } from '../../../adapters/identity/permissions.ts';
import type { OwnedCaseRow } from '../../../projections/peer/home.queries.ts';

const OWNER = '00000000-0000-4000-8000-00000000000a';
const row = (over: Partial<OwnedCaseRow>): OwnedCaseRow => ({
  id: '00000000-0000-4000-8000-000000000001',
  key: 'SVC-1',
  title: 'Beaconing',
  severity: 'high',
  status: 'new',
  team: 'blue',
  private: false,
  owner_id: OWNER,
  owner_email: 'ana@example.com',
  created_by_id: null,
  updated_at: new Date('2026-01-02T03:04:05.000Z'),
  owner_user_id: OWNER,
  owner_grants: [{ team: 'blue', role: 'analyst' }],
  ...over,
});

describe('homeItems', () => {
  it('answers an item with its assignee, team and Open action under the prefix', () => {
    expect(homeItems([row({})], defaultPermissionMatrix, '/svc')).toEqual([
      {
        id: '00000000-0000-4000-8000-000000000001',
        kind: 'case',
        key: 'SVC-1',
        title: 'Beaconing',
        severity: 'high',
        status: 'new',
        assignee: 'ana@example.com',
        team: 'blue',
        updated_at: '2026-01-02T03:04:05.000Z',
        actions: [{ id: 'open', title: 'Open', href: '/svc/cases/00000000-0000-4000-8000-000000000001' }],
      },
    ]);
  });

  it('lists a private case its owner is a member of, and not to an owner without grants in its team (issue 46)', () => {
    expect(homeItems([row({ private: true, team: 'red', owner_grants: [{ team: 'red', role: 'analyst' }] })], defaultPermissionMatrix, '')).toHaveLength(1);
    expect(homeItems([row({ private: true, team: 'red', owner_grants: [] })], defaultPermissionMatrix, '')).toEqual([]);
  });

  it('drops a case its owner may not see by the case-scope rule: an owner with no user row', () => {
    const unknown = { owner_user_id: null, owner_grants: null };
    expect(homeItems([row({ ...unknown, private: true })], defaultPermissionMatrix, '')).toEqual([]);
    expect(homeItems([row({ ...unknown })], defaultPermissionMatrix, '')).toEqual([]);
    expect(homeItems([row({ ...unknown, team: null })], defaultPermissionMatrix, '')).toHaveLength(1);
  });
});

describe('homeStrip', () => {
  it('answers org-wide first and always, then each team with a count, by id', () => {
    const strip = homeStrip(
      [
        { team: 'red', count: 2 },
        { team: 'blue', count: 0 },
      ],
      [{ team: 'amber', count: 1 }],
    );
    expect(strip.map((s) => [s.team, s.stages.map((x) => `${x.stage}=${x.count}`).join(' ')])).toEqual([
      [null, 'cases=0 actions=0'],
      ['amber', 'cases=0 actions=1'],
      ['red', 'cases=2 actions=0'],
    ]);
  });
});

describe('setupSteps', () => {
  const at = new Date('2026-01-01T00:00:00.000Z');

  it('lists both steps with what is done until both milestones are stamped', () => {
    expect(setupSteps(new Map(), '/svc').map((s) => [s.id, s.done, s.done_at, s.href])).toEqual([
      ['open_first_case', false, null, '/svc/cases'],
      ['finish_approved_response', false, null, '/svc/runbooks'],
    ]);
    expect(setupSteps(new Map([['first_case_opened', at]]), '').map((s) => [s.id, s.done, s.done_at])).toEqual([
      ['open_first_case', true, '2026-01-01T00:00:00.000Z'],
      ['finish_approved_response', false, null],
    ]);
  });

  it('is empty once both are stamped', () => {
    expect(
      setupSteps(
        new Map([
          ['first_case_opened', at],
          ['first_approved_response', at],
        ]),
        '',
      ),
    ).toEqual([]);
  });
});
