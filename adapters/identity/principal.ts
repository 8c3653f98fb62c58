/**
 * The authenticated caller of a request (CONTRACTS.md section 2).
 *
 * `grants` come from an assertion's claims or an exchange token's `act`; `scopes`
 * is null for assertions (browser callers are limited by role only) and the token's
 * space-separated `scope` list for exchange and service tokens.
 */
export const roles = ['viewer', 'analyst', 'approver', 'admin'] as const;
export type Role = (typeof roles)[number];
export type Grant = { team: string | null; role: Role };

export type Permission = 'read' | 'manage_cases' | 'run_runbooks' | 'approve_runbooks' | 'manage_runbooks' | 'manage_connections' | 'admin';

export type TokenUse = 'assertion' | 'exchange' | 'service';

export type Principal = {
  tokenUse: TokenUse;
  /** Identity subject of the acting person (assertion `sub`, exchange `act.sub`), or the workload/service `sub`. */
  subject: string;
  /** Local user row id when the caller acts for a person, else null. */
  userId: string | null;
  email: string | null;
  name: string | null;
  grants: Grant[];
  scopes: string[] | null;
  /** The workload `sub` of an exchange token, when an actor acts through it. */
  workload: string | null;
  /** A service token's signed `actor_sub`: the signed-in person it was minted for (account-section writes). */
  actorSubject?: string;
};
