/**
 * Whose tokens the service trusts (CONTRACTS.md "Caller tokens"): the identity service's
 * JWKS when SVC_IDENTITY_JWKS is set, else the local dev identity, unless the
 * environment refuses dev mode. Throws a start error naming the variable otherwise.
 */
import type { Logger } from 'pino';
import { devIdentityRefusal, devIssuer, ensureDevIdentity } from '../adapters/identity/dev-identity.ts';
import type { Config } from './config.ts';

/** The issuer and its keys: a JWKS path or inline JSON text, or the dev identity's key set. */
export type IdentitySource = { issuer: string; jwks: string | { keys: object[] } };

export async function identitySource(config: Config, env: NodeJS.ProcessEnv, log: Logger): Promise<IdentitySource> {
  if (config.identityJwks) {
    if (!config.identityIssuer) throw new Error('SVC_IDENTITY_ISSUER is required with SVC_IDENTITY_JWKS');
    return { issuer: config.identityIssuer, jwks: config.identityJwks };
  }
  const refusal = devIdentityRefusal(env);
  if (refusal) throw new Error(`SVC_IDENTITY_JWKS is not set and dev identity is refused: ${refusal}`);
  const identity = await ensureDevIdentity(config.dataDir);
  log.warn('DEV IDENTITY MODE: trusting a locally generated signing key; mint tokens with `npx svc dev token` (never use this in production)');
  return { issuer: devIssuer, jwks: identity.jwks };
}
