/**
 * Claims of the tokens the dev CLI mints (CONTRACTS.md section 4): an `exchange`
 * token with an `act` actor for `svc dev token` (or, with `--identity-service`, the
 * identity service's own `service` token), and a request-bound `assertion` per request
 * for `svc dev gateway`.
 */
import { v5 as uuidV5 } from 'uuid';
import { roles, type Grant, type Role } from './principal.ts';
import type { DevTokenClaims } from './dev-identity.ts';
import { scopes } from './scopes.ts';

// Fixed namespace so one email always maps to the same dev subject, hence the same user row.
const devSubjectNamespace = '4f1f3c3e-6a0e-4d8b-9a57-1d2f0c9b7e21';

/** The workload `sub` of tokens from `svc dev token`. */
export const devWorkload = 'svc-dev-cli';

/** Lifetime of a dev gateway assertion, in seconds (the verifier accepts at most 120). */
export const devAssertionTtlSeconds = 60;

/**
 * Parses a `--grant` value: `role` for a realm grant or `role:team` for a team
 * grant, e.g. `admin` or `analyst:blue-team`.
 *
 * @throws Error naming the value when the role is unknown or the team empty.
 */
export function parseGrant(text: string): Grant {
  const colon = text.indexOf(':');
  const role = colon === -1 ? text : text.slice(0, colon);
  const team = colon === -1 ? null : text.slice(colon + 1);
  if (!(roles as readonly string[]).includes(role)) throw new Error(`--grant ${text}: role must be one of ${roles.join(', ')}`);
  if (team === '') throw new Error(`--grant ${text}: team must not be empty`);
  return { team, role: role as Role };
}

/** The identity subject (a UUID) the dev identity gives the person with `email`; case-insensitive in the email. */
export function devSubject(email: string): string {
  return uuidV5(email.trim().toLowerCase(), devSubjectNamespace);
}

/** Claims of a dev exchange token acting for `email`; `scope` defaults to every scope of the service. */
export function devExchangeClaims(person: { email: string; grants: Grant[]; scope?: string[] }): DevTokenClaims {
  return {
    token_use: 'exchange',
    sub: devWorkload,
    scope: (person.scope ?? scopes).join(' '),
    act: { sub: devSubject(person.email), email: person.email, grants: person.grants },
  };
}

/**
 * Claims of a dev token of the identity service itself (`token_use: service`, `sub:
 * identity`, no actor), as it calls the peer routes it owns, such as `PUT
 * /peer/v1/settings/ai` with `svc:peer:ai:write`.
 */
export function devIdentityServiceClaims(scope: string[]): DevTokenClaims {
  return { token_use: 'service', sub: 'identity', scope: scope.join(' ') };
}

/** Claims of a dev assertion for `email` bound to `method` and `path` (below SVC_BASE_PATH, no query). */
export function devAssertionClaims(person: { email: string; name: string; grants: Grant[] }, request: { method: string; path: string }): DevTokenClaims {
  return {
    token_use: 'assertion',
    sub: devSubject(person.email),
    email: person.email,
    name: person.name,
    grants: person.grants,
    htm: request.method.toUpperCase(),
    htu: request.path,
  };
}
