/**
 * Role-to-permission matrix and the checks routes make against a principal's
 * grants (CONTRACTS.md section 2, "Default role-to-permission matrix").
 */
import { roles, type Permission, type Principal, type Role } from './principal.ts';

export type PermissionMatrix = Record<Role, Permission[]>;

const permissionNames: readonly Permission[] = ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks', 'manage_runbooks', 'manage_connections', 'admin'];

/** The default matrix: each role holds every permission of the roles below it, plus its own. */
export const defaultPermissionMatrix: PermissionMatrix = {
  viewer: ['read'],
  analyst: ['read', 'manage_cases', 'run_runbooks'],
  approver: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks'],
  admin: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks', 'manage_runbooks', 'manage_connections', 'admin'],
};

/**
 * Parses `SVC_PERMISSIONS`: a JSON object mapping role names to permission lists,
 * e.g. `{"analyst": ["read", "manage_cases"]}`.
 *
 * Each listed role gets exactly the permissions listed (no inheritance from lower
 * roles); roles the object leaves out keep their default. Undefined or blank input
 * gives the default matrix.
 *
 * @throws Error naming the problem: invalid JSON, not an object, unknown role,
 *   a value that is not a list, or an unknown permission.
 */
export function parsePermissionMatrix(json: string | undefined): PermissionMatrix {
  if (json === undefined || json.trim() === '') return defaultPermissionMatrix;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`SVC_PERMISSIONS is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('SVC_PERMISSIONS must be a JSON object mapping roles to permission lists');
  }
  const matrix: PermissionMatrix = { ...defaultPermissionMatrix };
  for (const [role, list] of Object.entries(parsed)) {
    if (!isRole(role)) throw new Error(`SVC_PERMISSIONS names an unknown role "${role}" (known: ${roles.join(', ')})`);
    if (!Array.isArray(list)) throw new Error(`SVC_PERMISSIONS role "${role}" must map to a list of permissions`);
    for (const permission of list) {
      if (!permissionNames.includes(permission)) {
        throw new Error(`SVC_PERMISSIONS role "${role}" lists an unknown permission "${String(permission)}" (known: ${permissionNames.join(', ')})`);
      }
    }
    matrix[role] = [...new Set(list as Permission[])];
  }
  return matrix;
}

/**
 * Whether `principal` holds `permission` under `matrix`.
 *
 * `team` undefined: any grant counts (the route scopes its data by team itself).
 * `team` given (a team id, or null for install-wide data): only a realm grant
 * (`team: null`) or a grant for exactly that team counts.
 */
export function hasPermission(principal: Pick<Principal, 'grants'>, permission: Permission, matrix: PermissionMatrix, team?: string | null): boolean {
  return principal.grants.some((grant) => (team === undefined || grant.team === null || grant.team === team) && matrix[grant.role].includes(permission));
}

/**
 * Whether `principal` is a realm admin: the `admin` permission through a grant with no
 * team. Install-wide objects (connections, the response policy, packs, custom actions,
 * webhook sources without a team) need their permission through a realm grant, which only
 * realm admins hold under the default matrix; consents such as a ticket connection's
 * `mirror_private_cases` are a realm admin's whatever the matrix.
 */
export function isRealmAdmin(principal: Pick<Principal, 'grants'>, matrix: PermissionMatrix): boolean {
  return hasPermission(principal, 'admin', matrix, null);
}

/** The highest role among the principal's grants (`viewer < analyst < approver < admin`), or null with no grants. */
export function highestRole(principal: Pick<Principal, 'grants'>): Role | null {
  let best = -1;
  for (const grant of principal.grants) best = Math.max(best, roles.indexOf(grant.role));
  return roles[best] ?? null;
}

function isRole(value: string): value is Role {
  return (roles as readonly string[]).includes(value);
}
