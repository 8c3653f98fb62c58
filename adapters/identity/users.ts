/**
 * The local user rows of the people who call the service (CONTRACTS.md section 2:
 * "A user row (id, identity subject, email, name, active) is created or refreshed
 * from each accepted assertion").
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import type { Principal } from './principal.ts';
import { systemClock, type Clock } from '../shared/clock.ts';

export type UserDirectory = { resolve: (principal: Principal) => Promise<Principal> };

type Known = { id: string; email: string; name: string | null; grants: string; checkedAt: number };

const cacheLimit = 10_000;
/** How long a process trusts its memory of a row before reading it again (other processes may write it). */
const cacheTtlMs = 60_000;

/**
 * A directory that maps a person's principal (an assertion, or an exchange token
 * with an `act` actor) to its user row, creating the row on first sight and
 * refreshing `email`, `name` and `grants` when the token carries new values; the row's
 * `active` flag is left as it is. Returns the principal with `userId` set (and
 * `name` taken from the row when the token has none, as exchange actors do).
 * Workload and service principals come back unchanged, `userId` null.
 *
 * A small per-process cache skips the database while a subject's email and name
 * are unchanged, so a steady caller costs no write per request.
 */
/** Grants in a canonical form for comparison (jsonb reorders object keys). */
const grantsKey = (grants: readonly { team: string | null; role: string }[]) => JSON.stringify(grants.map((g) => [g.team, g.role]).sort());

export function createUserDirectory(db: Kysely<Database>, now: Clock = systemClock): UserDirectory {
  const known = new Map<string, Known>();

  const remember = (subject: string, row: Omit<Known, 'checkedAt'>, at: Date): void => {
    known.delete(subject);
    if (known.size >= cacheLimit) {
      const oldest = known.keys().next();
      if (!oldest.done) known.delete(oldest.value);
    }
    known.set(subject, { ...row, checkedAt: at.getTime() });
  };

  const matches = (row: { email: string; name: string | null; grants: string }, email: string, name: string | null, grants: string): boolean =>
    row.email === email && (name === null || row.name === name) && row.grants === grants;

  const resolve = async (principal: Principal): Promise<Principal> => {
    const person = principal.tokenUse === 'assertion' || (principal.tokenUse === 'exchange' && principal.workload !== null);
    if (!person || principal.email === null) return principal;
    const { subject, email, name } = principal;
    const grants = grantsKey(principal.grants);
    const at = now();

    const cached = known.get(subject);
    if (cached && at.getTime() - cached.checkedAt < cacheTtlMs && matches(cached, email, name, grants)) {
      return { ...principal, userId: cached.id, name: name ?? cached.name };
    }
    const stored = await db.selectFrom('users').select(['id', 'email', 'name', 'grants']).where('subject', '=', subject).executeTakeFirst();
    let row = stored && { id: stored.id, email: stored.email, name: stored.name, grants: grantsKey(stored.grants) };
    if (!row || !matches(row, email, name, grants)) {
      const written = await db
        .insertInto('users')
        .values({ id: randomUUID(), subject, email, name, active: true, grants: JSON.stringify(principal.grants), updated_at: at })
        .onConflict((oc) =>
          oc.column('subject').doUpdateSet((eb) => ({
            email: eb.ref('excluded.email'),
            // An exchange actor carries no name: keep the one an assertion gave.
            name: eb.fn.coalesce('excluded.name', 'users.name'),
            grants: eb.ref('excluded.grants'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returning(['id', 'email', 'name'])
        .executeTakeFirstOrThrow();
      row = { ...written, grants };
    }
    remember(subject, row, at);
    return { ...principal, userId: row.id, name: name ?? row.name };
  };

  return { resolve };
}
