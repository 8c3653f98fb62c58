/**
 * The nav (SPEC.md "Peer endpoints" `GET /peer/v1/nav`): each entry's `requiredRole` is the
 * least role from which every stronger role holds the entry's permission, computed from
 * the matrix, and every `href` is a page the console's router serves.
 */
import { matchPath } from 'react-router';
import { describe, expect, it } from 'vitest';
import { navDocument, requiredRole } from '../../../adapters/http/peer-nav.ts';
import { defaultPermissionMatrix, type PermissionMatrix } from '../../../adapters/identity/permissions.ts';
import { consoleRoute } from '../../../console/src/format.ts';
import { consolePaths } from '../../../console/src/routes.ts';

const everything = defaultPermissionMatrix.admin;
/** analyst holds manage_runbooks, approver does not; admin lacks manage_connections. */
const uneven: PermissionMatrix = {
  viewer: ['read'],
  analyst: ['read', 'manage_cases', 'run_runbooks', 'manage_runbooks'],
  approver: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks'],
  admin: everything.filter((p) => p !== 'manage_connections'),
};

describe('requiredRole', () => {
  it('follows the default matrix, role by role', () => {
    expect(requiredRole('read', defaultPermissionMatrix)).toBe('viewer');
    expect(requiredRole('manage_cases', defaultPermissionMatrix)).toBe('analyst');
    expect(requiredRole('approve_runbooks', defaultPermissionMatrix)).toBe('approver');
    expect(requiredRole('manage_connections', defaultPermissionMatrix)).toBe('admin');
    expect(requiredRole('admin', defaultPermissionMatrix)).toBe('admin');
  });

  it('starts above a weaker role whose stronger neighbour lacks the permission', () => {
    expect(requiredRole('manage_runbooks', uneven)).toBe('admin');
  });

  it('is null when even admin lacks the permission', () => {
    expect(requiredRole('manage_connections', uneven)).toBeNull();
  });

  it('is viewer when every role holds it, and no role at all when none does', () => {
    const all: PermissionMatrix = { viewer: everything, analyst: everything, approver: everything, admin: everything };
    expect(requiredRole('admin', all)).toBe('viewer');
    const none: PermissionMatrix = { viewer: [], analyst: [], approver: [], admin: [] };
    expect(requiredRole('read', none)).toBeNull();
  });
});

describe('navDocument', () => {
  it('leaves requiredRole out where every role holds it and puts hrefs under the prefix', () => {
    const nav = navDocument('svc', defaultPermissionMatrix, '/svc');
    expect(nav.sections).toEqual([
      { id: 'cases', title: 'Cases', href: '/svc/cases' },
      { id: 'alerts', title: 'Alerts', href: '/svc/alerts' },
      { id: 'runbooks', title: 'Runbooks', href: '/svc/runbooks' },
      { id: 'runs', title: 'Runs', href: '/svc/runs' },
      { id: 'effects', title: 'Containment', href: '/svc/effects' },
      { id: 'approvals', title: 'Approvals', href: '/svc/approvals' },
      { id: 'metrics', title: 'Metrics', href: '/svc/metrics' },
    ]);
    expect(nav.settings).toEqual([
      { id: 'connections', title: 'Connections', href: '/svc/settings/connections', requiredRole: 'admin' },
      { id: 'packs', title: 'Integration packs', href: '/svc/settings/packs', requiredRole: 'admin' },
      { id: 'policy', title: 'Response policy', href: '/svc/settings/policy', requiredRole: 'admin' },
      { id: 'webhook-sources', title: 'Webhook sources', href: '/svc/settings/webhook-sources', requiredRole: 'admin' },
      { id: 'custom-actions', title: 'Custom actions', href: '/svc/settings/custom-actions', requiredRole: 'admin' },
      { id: 'audit', title: 'Audit log', href: '/svc/settings/audit', requiredRole: 'admin' },
      { id: 'retention', title: 'Retention', href: '/svc/settings/retention', requiredRole: 'admin' },
      { id: 'ai', title: 'AI settings', href: '/svc/settings/ai', requiredRole: 'admin' },
    ]);
    expect(nav.actions).toEqual([{ id: 'search', title: 'Search cases and runbooks', method: 'GET', endpoint: '/peer/v1/search' }]);
  });

  it('computes each entry from the configured matrix and leaves out what no role may open', () => {
    const readers: PermissionMatrix = { ...uneven, viewer: [] };
    const nav = navDocument('svc', readers, '');
    expect(nav.sections.map((e) => [e.href, e.requiredRole])).toEqual([
      ['/cases', 'analyst'],
      ['/alerts', 'analyst'],
      ['/runbooks', 'analyst'],
      ['/runs', 'analyst'],
      ['/effects', 'analyst'],
      ['/approvals', 'analyst'],
      ['/metrics', 'analyst'],
    ]);
    const blind: PermissionMatrix = { ...readers, admin: everything.filter((p) => p !== 'read') };
    expect(navDocument('svc', blind, '').sections).toEqual([]);
  });

  it.each(['/svc', '', '/soc/svc'])('links only pages the console routes, under the prefix %j', (prefix) => {
    // Every role holds everything, so no entry is left out.
    const all: PermissionMatrix = { viewer: everything, analyst: everything, approver: everything, admin: everything };
    const nav = navDocument('svc', all, prefix);
    for (const entry of [...nav.sections, ...nav.settings]) {
      const route = consoleRoute(entry.href, prefix);
      expect(route !== null && consolePaths.some((path) => matchPath(path, route) !== null), `${entry.id}: ${entry.href}`).toBe(true);
    }
  });
});
