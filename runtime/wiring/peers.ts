/**
 * Everything that leaves the process (SPEC.md "Authentication", docs/suite-contracts.md):
 * the SSRF-guarded fetch with its extra CA, the client-credentials token cache, the
 * workload exchange, and the detection product's and identity service's clients.
 */
import { createTokenSource, type TokenSource } from '../../adapters/actions/oauth2-token.ts';
import { createDetectorClient, type DetectorClient } from '../../adapters/detector/client.ts';
import { createExchangeClient, type ExchangeClient } from '../../adapters/exchange/client.ts';
import { createApprovalDefaults, type ApprovalDefaults } from '../../adapters/identity-service/approval-defaults.ts';
import { createIdentityServiceClient, type IdentityServiceClient } from '../../adapters/identity-service/client.ts';
import { createGuardedFetch, type GuardedFetch } from '../../adapters/outbound/guarded-fetch.ts';
import { readCaFile } from '../outbound-ca.ts';
import type { Core } from './core.ts';

export type Peers = {
  outbound: GuardedFetch;
  /** The PEM text of SVC_OUTBOUND_CA_FILE, trusted beside the system roots; null without one. */
  extraCa: string | null;
  tokens: TokenSource;
  exchange: ExchangeClient;
  detector: DetectorClient;
  identityService: IdentityServiceClient;
  approvalDefaults: ApprovalDefaults;
};

/** Builds the outbound clients; opens no connection until one is used. Throws when SVC_OUTBOUND_CA_FILE cannot be read. */
export function createPeers({ config, log, now }: Pick<Core, 'config' | 'log' | 'now'>): Peers {
  const extraCa = config.outbound.caFile === null ? null : readCaFile(config.outbound.caFile);
  const outbound = createGuardedFetch({
    allowPrivate: config.outbound.allowPrivate,
    allowedHosts: config.outbound.peerHosts,
    exchangeOrigin: config.outbound.exchangeOrigin,
    ...(extraCa === null ? {} : { extraCa }),
  });
  if (config.outbound.allowPrivate)
    log.warn('SVC_ALLOW_PRIVATE_TARGETS is on: outbound HTTP may reach private, loopback and metadata addresses (development only)');
  const tokens = createTokenSource(outbound, () => now().getTime());
  const exchange = createExchangeClient(config.exchange, tokens);
  const identityService = createIdentityServiceClient({ outbound, exchange, settings: config.identityService });
  const approvalDefaults = createApprovalDefaults({
    read: identityService.approvalSettings,
    ttlMs: config.approvalSettingsTtlMs,
    now,
    onUnavailable: (error) => {
      // Without SVC_IDENTITY_URL the 24 hours are the configured behaviour, not a failure.
      if (error.reason !== 'not_configured')
        log.warn({ reason: error.reason, err: error }, 'approval settings unreadable: the gate deadline falls back to 24 hours');
    },
  });
  return { outbound, extraCa, tokens, exchange, detector: createDetectorClient(outbound, exchange), identityService, approvalDefaults };
}
