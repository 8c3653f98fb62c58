/**
 * Which gates a set of grants may decide, and so which an approvals listing shows
 * (adapters/identity/gate-approval.ts; SPEC.md "Runs, steps and gates", "Peer endpoints"):
 * a grant covering the run's team whose role holds `approve_runbooks` and is accepted by
 * the gate, and the four-eyes rule for a person's own runs.
 */
import { describe, expect, it } from 'vitest';
import { approvingRoles, gateListing, mayDecideGate, type Approver } from '../../../adapters/identity/gate-approval.ts';
import { defaultPermissionMatrix, parsePermissionMatrix } from '../../../adapters/identity/permissions.ts';
import type { Grant } from '../../../adapters/identity/principal.ts';

const m = defaultPermissionMatrix;
const blueApprover: Grant = { team: 'blue', role: 'approver' };
const realmApprover: Grant = { team: null, role: 'approver' };

describe('gate approval', () => {
  it('counts only grants covering the run team: that team, or a realm grant', () => {
    expect(mayDecideGate([blueApprover], m, 'blue', ['approver'])).toBe(true);
    expect(mayDecideGate([blueApprover], m, 'red', ['approver'])).toBe(false);
    expect(mayDecideGate([realmApprover], m, 'red', ['approver'])).toBe(true);
  });

  it('needs a realm grant for an org-wide run', () => {
    expect(mayDecideGate([blueApprover], m, null, ['approver'])).toBe(false);
    expect(mayDecideGate([realmApprover], m, null, ['approver'])).toBe(true);
  });

  it("needs a role holding approve_runbooks under the matrix, which the gate's roles accept by exact name", () => {
    expect(mayDecideGate([{ team: 'blue', role: 'analyst' }], m, 'blue', ['analyst'])).toBe(false);
    expect(mayDecideGate([{ team: 'blue', role: 'admin' }], m, 'blue', ['approver'])).toBe(false);
    expect(mayDecideGate([{ team: 'blue', role: 'admin' }], m, 'blue', ['approver', 'admin'])).toBe(true);
    const analystsApprove = parsePermissionMatrix('{"analyst": ["read", "approve_runbooks"]}');
    expect(mayDecideGate([{ team: 'blue', role: 'analyst' }], analystsApprove, 'blue', ['analyst'])).toBe(true);
  });

  it('takes the permission and the accepted role from the same grant', () => {
    // The approver grant holds the permission but the gate wants analysts; the analyst grant has no permission.
    expect(approvingRoles([{ team: 'blue', role: 'analyst' }, blueApprover], m, 'blue')).toEqual(['approver']);
    expect(mayDecideGate([{ team: 'blue', role: 'analyst' }, blueApprover], m, 'blue', ['analyst'])).toBe(false);
    // A grant for another team never lends its role.
    expect(approvingRoles([blueApprover, { team: 'red', role: 'admin' }], m, 'blue')).toEqual(['approver']);
  });

  it("shows a person's own run only with the four-eyes exception, marked self-requested; emails compare case-insensitively", () => {
    const alice: Approver = { grants: [blueApprover], fourEyesException: false, email: 'alice@example.com' };
    const gate = { team: 'blue', roles: ['approver'], requestedBy: 'Alice@Example.com' };
    expect(gateListing(alice, gate, m)).toEqual({ listed: false });
    expect(gateListing({ ...alice, fourEyesException: true }, gate, m)).toEqual({ listed: true, selfRequested: true });
    expect(gateListing(alice, { ...gate, requestedBy: 'ana@example.com' }, m)).toEqual({ listed: true, selfRequested: false });
    expect(gateListing(alice, { ...gate, requestedBy: null }, m)).toEqual({ listed: true, selfRequested: false });
    expect(gateListing({ ...alice, email: null }, gate, m)).toEqual({ listed: true, selfRequested: false });
    expect(gateListing({ ...alice, fourEyesException: true }, { ...gate, team: 'red' }, m)).toEqual({ listed: false });
  });
});
