/**
 * The suite shell's navigation of this product (`GET /peer/v1/nav`, SPEC.md "Peer
 * endpoints"; shapes in docs/suite-contracts.md "Suite shell peer endpoints").
 *
 * Each entry is a page the console routes (console/src/routes.ts; tests/unit/peer/nav.test.ts
 * holds every `href` to that list), with `href` under the public prefix and the permission
 * of the API route the page reads. Its `requiredRole` is computed from the
 * configured matrix (SVC_PERMISSIONS), never written down: the least role on
 * viewer < analyst < approver < admin from which every stronger role holds the permission;
 * absent when every role holds it; an entry no role qualifies for is left out.
 */
import * as v from 'valibot';
import type { PermissionMatrix } from '../identity/permissions.ts';
import { roles, type Permission, type Role } from '../identity/principal.ts';

/**
 * The least role from which every stronger role holds `permission` under `matrix`, or null
 * when no role does (the strongest, admin, lacks it).
 * @example requiredRole('approve_runbooks', defaultPermissionMatrix) === 'approver'
 */
export function requiredRole(permission: Permission, matrix: PermissionMatrix): Role | null {
  let least: Role | null = null;
  for (const role of [...roles].reverse()) {
    if (!matrix[role].includes(permission)) break;
    least = role;
  }
  return least;
}

/** A page of the nav: `path` below the public prefix, and the permission its route requires. */
type NavPage = { id: string; title: string; path: string; permission: Permission };

const sectionPages: readonly NavPage[] = [
  { id: 'cases', title: 'Cases', path: '/cases', permission: 'read' },
  { id: 'alerts', title: 'Alerts', path: '/alerts', permission: 'read' },
  { id: 'runbooks', title: 'Runbooks', path: '/runbooks', permission: 'read' },
  { id: 'runs', title: 'Runs', path: '/runs', permission: 'read' },
  { id: 'effects', title: 'Containment', path: '/effects', permission: 'read' },
  { id: 'approvals', title: 'Approvals', path: '/approvals', permission: 'read' },
  { id: 'metrics', title: 'Metrics', path: '/metrics', permission: 'read' },
];

/** The console's settings pages; the rest of the settings are API-only until they are routed (docs/console.md). */
const settingPages: readonly NavPage[] = [
  { id: 'connections', title: 'Connections', path: '/settings/connections', permission: 'manage_connections' },
  { id: 'packs', title: 'Integration packs', path: '/settings/packs', permission: 'manage_runbooks' },
  { id: 'policy', title: 'Response policy', path: '/settings/policy', permission: 'admin' },
  { id: 'webhook-sources', title: 'Webhook sources', path: '/settings/webhook-sources', permission: 'manage_connections' },
  { id: 'custom-actions', title: 'Custom actions', path: '/settings/custom-actions', permission: 'manage_connections' },
  { id: 'audit', title: 'Audit log', path: '/settings/audit', permission: 'admin' },
  { id: 'retention', title: 'Retention', path: '/settings/retention', permission: 'admin' },
  { id: 'ai', title: 'AI settings', path: '/settings/ai', permission: 'admin' },
];

const navEntrySchema = v.strictObject({
  id: v.string(),
  title: v.string(),
  href: v.string(),
  requiredRole: v.optional(v.picklist(roles)),
});
type NavEntry = v.InferOutput<typeof navEntrySchema>;

/** The header search: a GET of `endpoint` (below `{base_url}`) with `user`, `q` and an optional `team`. */
const navActionSchema = v.strictObject({
  id: v.literal('search'),
  title: v.string(),
  method: v.literal('GET'),
  endpoint: v.string(),
});

/** `GET /peer/v1/nav`. */
export const navDocumentSchema = v.strictObject({
  product: v.string(),
  sections: v.array(navEntrySchema),
  settings: v.array(navEntrySchema),
  actions: v.array(navActionSchema),
});
type NavDocument = v.InferOutput<typeof navDocumentSchema>;

/** The endpoint the header search calls (SPEC.md "Peer endpoints"). */
export const PEER_SEARCH_PATH = '/peer/v1/search';

function entries(pages: readonly NavPage[], matrix: PermissionMatrix, prefix: string): NavEntry[] {
  return pages.flatMap((page) => {
    const role = requiredRole(page.permission, matrix);
    if (role === null) return [];
    return [{ id: page.id, title: page.title, href: `${prefix}${page.path}`, ...(role !== roles[0] && { requiredRole: role }) }];
  });
}

/** The nav of `product` under `matrix`; `prefix` is the public UI prefix without a trailing slash. */
export function navDocument(product: string, matrix: PermissionMatrix, prefix: string): NavDocument {
  return {
    product,
    sections: entries(sectionPages, matrix, prefix),
    settings: entries(settingPages, matrix, prefix),
    actions: [{ id: 'search', title: 'Search cases and runbooks', method: 'GET', endpoint: PEER_SEARCH_PATH }],
  };
}
