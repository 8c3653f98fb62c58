import { describe, expect, it } from 'vitest';
import { defaultPermissionMatrix, hasPermission, highestRole, parsePermissionMatrix } from '../../../adapters/identity/permissions.ts';
import type { Grant, Principal } from '../../../adapters/identity/principal.ts';

function person(grants: Grant[]): Principal {
  return { tokenUse: 'assertion', subject: 's', userId: null, email: 'a@example.com', name: 'A', grants, scopes: null, workload: null };
}

describe('permission matrix', () => {
  it('grows the default matrix role by role', () => {
    expect(defaultPermissionMatrix.viewer).toEqual(['read']);
    expect(defaultPermissionMatrix.analyst).toEqual(expect.arrayContaining(['read', 'manage_cases', 'run_runbooks']));
    expect(defaultPermissionMatrix.approver).toContain('approve_runbooks');
    expect(defaultPermissionMatrix.approver).not.toContain('manage_runbooks');
    expect(defaultPermissionMatrix.admin).toEqual(expect.arrayContaining(['approve_runbooks', 'manage_runbooks', 'manage_connections', 'admin']));
  });

  it('parses SVC_PERMISSIONS, keeping defaults for roles it leaves out', () => {
    expect(parsePermissionMatrix(undefined)).toEqual(defaultPermissionMatrix);
    expect(parsePermissionMatrix('  ')).toEqual(defaultPermissionMatrix);
    const matrix = parsePermissionMatrix('{"viewer": [], "analyst": ["read", "manage_cases", "read"]}');
    expect(matrix.viewer).toEqual([]);
    expect(matrix.analyst).toEqual(['read', 'manage_cases']);
    expect(matrix.admin).toEqual(defaultPermissionMatrix.admin);
  });

  it('names the problem in an invalid SVC_PERMISSIONS', () => {
    expect(() => parsePermissionMatrix('{nope')).toThrow(/not valid JSON/);
    expect(() => parsePermissionMatrix('[]')).toThrow(/JSON object/);
    expect(() => parsePermissionMatrix('{"owner": ["read"]}')).toThrow(/unknown role "owner"/);
    expect(() => parsePermissionMatrix('{"viewer": "read"}')).toThrow(/list of permissions/);
    expect(() => parsePermissionMatrix('{"viewer": ["read", "fly"]}')).toThrow(/unknown permission "fly"/);
  });

  it('checks any grant without a team, and realm or matching team grants with one', () => {
    const p = person([
      { team: 'blue', role: 'analyst' },
      { team: null, role: 'viewer' },
    ]);
    expect(hasPermission(p, 'manage_cases', defaultPermissionMatrix)).toBe(true);
    expect(hasPermission(p, 'manage_cases', defaultPermissionMatrix, 'blue')).toBe(true);
    expect(hasPermission(p, 'manage_cases', defaultPermissionMatrix, 'red')).toBe(false);
    expect(hasPermission(p, 'manage_cases', defaultPermissionMatrix, null)).toBe(false);
    expect(hasPermission(p, 'read', defaultPermissionMatrix, 'red')).toBe(true);
    expect(hasPermission(p, 'admin', defaultPermissionMatrix)).toBe(false);
    expect(hasPermission(person([]), 'read', defaultPermissionMatrix)).toBe(false);
  });

  it('follows a configured matrix', () => {
    const matrix = parsePermissionMatrix('{"viewer": ["read", "manage_cases"]}');
    expect(hasPermission(person([{ team: null, role: 'viewer' }]), 'manage_cases', matrix)).toBe(true);
  });

  it('finds the highest role held', () => {
    expect(highestRole(person([]))).toBeNull();
    expect(
      highestRole(
        person([
          { team: 'a', role: 'approver' },
          { team: null, role: 'analyst' },
        ]),
      ),
    ).toBe('approver');
    expect(highestRole(person([{ team: 'a', role: 'admin' }]))).toBe('admin');
  });
});
