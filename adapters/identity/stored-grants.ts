/**
 * The grants a user row keeps (CONTRACTS.md section 2: the grants of the person's last
 * accepted token), read back for a person who is not the caller: a peer route asking
 * on behalf of `user=<subject>`.
 */
import { roles, type Grant, type Role } from './principal.ts';

/** `stored` as grants, without any entry whose role this service does not know. */
export function storedGrants(stored: readonly { team: string | null; role: string }[]): Grant[] {
  return stored.flatMap((g) => ((roles as readonly string[]).includes(g.role) ? [{ team: g.team, role: g.role as Role }] : []));
}
