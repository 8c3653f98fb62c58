/**
 * A response policy binding of `block`/`ip` to a stand-in vendor action
 * `custom.stand_in.block` on the http connection `waf`, for tests that drive the managed
 * containment actions (adapters/effects/response-actions.ts) against a vendor action of their own
 * that counts its calls, with no server behind it.
 */
import type { ResolvedConnection } from '../../adapters/actions/action.ts';
import type { ResponsePolicy } from '../../domain/response-policy/policy.ts';

/** The binding: block and unblock both by the stand-in action, no status read. */
export const standInBinding: ResponsePolicy['adapters'][number] = {
  effect_type: 'block',
  target_type: 'ip',
  adapter_id: 'stand_in',
  block_action: 'custom.stand_in.block',
  unblock_action: 'custom.stand_in.block',
  status_action: null,
  connection_name: 'waf',
  parameters: {},
};

/** The automatic grant of blocks of an IP for up to an hour, whatever the case's severity. */
export const standInGrant: ResponsePolicy['automatic_grants'][number] = { effect_type: 'block', target_type: 'ip', max_ttl_seconds: 3600, severities: [] };

/** The connection the binding names, as actions see it (nothing listens there). */
export const standInWaf: ResolvedConnection = {
  id: 'c-waf',
  kind: 'http',
  name: 'waf',
  base_url: 'http://127.0.0.1:9',
  config: {},
  secret: 's',
  previous_secret: null,
  bot_token: null,
};
