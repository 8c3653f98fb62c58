/**
 * `svc dev token`: prints an exchange token with an `act` actor, signed by the dev
 * identity, for calling a local service by hand (CONTRACTS.md section 4).
 */
import { devExchangeClaims, devIdentityServiceClaims, parseGrant } from '../../adapters/identity/dev-claims.ts';
import { devIdentityRefusal, ensureDevIdentity, mintDevToken, type DevIdentity } from '../../adapters/identity/dev-identity.ts';
import type { Grant } from '../../adapters/identity/principal.ts';

const defaultTtlSeconds = 12 * 60 * 60;

/**
 * The dev identity of the local service configured by `env` (`SVC_DATA_DIR`,
 * default `./data`) and the audience its tokens carry (`SVC_AUDIENCE`, default `svc`).
 *
 * @throws Error when dev identity is refused (devIdentityRefusal) or when
 *   `SVC_IDENTITY_JWKS` is set, since the service then trusts those keys only and
 *   would refuse every dev token.
 */
export async function loadDevIdentity(env: NodeJS.ProcessEnv): Promise<{ identity: DevIdentity; audience: string }> {
  const refusal = devIdentityRefusal(env);
  if (refusal !== null) throw new Error(refusal);
  if (env.SVC_IDENTITY_JWKS) throw new Error('SVC_IDENTITY_JWKS is set: the service trusts those keys, not the dev identity');
  return { identity: await ensureDevIdentity(env.SVC_DATA_DIR || './data'), audience: env.SVC_AUDIENCE || 'svc' };
}

/**
 * The person a dev command acts for, from `--email` and one or more `--grant role[:team]`.
 *
 * @throws Error when `--email` or every `--grant` is missing, or a grant is invalid.
 */
export function devPerson(values: { email?: string; grant?: string[] }): { email: string; grants: Grant[] } {
  if (!values.email) throw new Error('--email is required');
  if (!values.grant || values.grant.length === 0) throw new Error('at least one --grant role[:team] is required');
  return { email: values.email, grants: values.grant.map(parseGrant) };
}

/** The options of `svc dev token`, as the command line parsed them (runtime/cli/main.ts). */
export type DevTokenOptions = { email?: string; grant?: string[]; ttl?: number; scope?: string[]; identityService?: boolean };

/**
 * Runs `svc dev token --email E --grant admin[:team] [--grant ...] [--ttl 3600] [--scope S ...]`,
 * or `svc dev token --identity-service --scope S [...]` for the identity service's own token
 * (no person; e.g. `svc:peer:ai:write` to set the AI provider). Writes one token and a
 * newline to `write` (default stdout). `ttl` is in seconds (default 12 h); each `scope` may
 * hold several space-separated scopes, and they default to every scope of the service (a
 * person's token only).
 *
 * @throws Error on invalid options and when dev identity is refused.
 */
export async function runDevToken(
  options: DevTokenOptions,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  const ttlSeconds = options.ttl ?? defaultTtlSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new Error('--ttl must be a positive whole number of seconds');
  const scope = options.scope?.flatMap((s) => s.split(' ')).filter((s) => s !== '');
  const claims = options.identityService
    ? identityServiceClaims(options, scope)
    : devExchangeClaims({ ...devPerson(options), scope: scope?.length ? scope : undefined });

  const { identity, audience } = await loadDevIdentity(env);
  write(`${await mintDevToken(identity, claims, { audience, ttlSeconds })}\n`);
}

/** The identity service's own claims: no person, and the scopes named (with none, every route would refuse it). */
function identityServiceClaims(values: { email?: string | undefined; grant?: string[] | undefined }, scope: string[] | undefined) {
  if (values.email !== undefined || values.grant !== undefined) throw new Error('--identity-service mints a token for no person: drop --email and --grant');
  if (!scope?.length) throw new Error('--identity-service needs --scope, e.g. --scope svc:peer:ai:write');
  return devIdentityServiceClaims(scope);
}
