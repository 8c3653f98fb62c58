/**
 * Parsed integration pack documents for tests (domain/integration-packs/pack.ts), with no
 * I/O: a pack of `actions` as integrationPackSchema parses it, under a placeholder
 * integrity digest (the domain checks the digest only when reading a file).
 */
import * as v from 'valibot';
import { integrationPackSchema, type IntegrationPack } from '../../domain/integration-packs/pack.ts';

export function parsedPack(actions: unknown[], over: { name?: string; version?: string; connection_kinds?: string[] } = {}): IntegrationPack {
  return v.parse(integrationPackSchema, {
    format: 'integration-pack',
    format_version: 1,
    name: over.name ?? 'intel',
    version: over.version ?? '1.0.0',
    title: 'Test pack',
    publisher: 'svc tests',
    connection_kinds: over.connection_kinds ?? ['http', 'ssh'],
    actions,
    integrity: { algorithm: 'sha256', digest: '0'.repeat(64) },
  });
}
