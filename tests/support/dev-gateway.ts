/**
 * A browser's way in for tests: `svc dev gateway` on an ephemeral loopback port in front
 * of a service at `serviceUrl` (no SVC_BASE_PATH, audience `svc`), minting each request's
 * assertion for one person with one realm-wide role.
 */
import type { DevIdentity } from '../../adapters/identity/dev-identity.ts';
import { startDevGateway, type DevGateway } from '../../runtime/cli/dev-gateway.ts';

export function gatewayAs(identity: DevIdentity, serviceUrl: string, email: string, role: 'viewer' | 'analyst' | 'approver' | 'admin'): Promise<DevGateway> {
  return startDevGateway({
    host: '127.0.0.1',
    port: 0,
    target: new URL(serviceUrl),
    basePath: '',
    audience: 'svc',
    identity,
    person: { email, name: email.split('@')[0] ?? email, grants: [{ team: null, role }] },
  });
}
