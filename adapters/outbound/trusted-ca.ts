/**
 * The certificates outbound TLS trusts (SVC_OUTBOUND_CA_FILE, docs/configuration.md):
 * Node's bundled roots plus the operator's extra CA, for HTTPS, IMAP and SMTP alike.
 */
import { rootCertificates } from 'node:tls';

/**
 * The `ca` option of a TLS client: undefined (Node's roots) without an extra CA; else the
 * roots and `extraCa` (PEM text, one or more certificates), since Node's `ca` replaces the
 * bundled roots instead of adding to them.
 */
export function trustedCa(extraCa: string | null): string[] | undefined {
  return extraCa === null ? undefined : [...rootCertificates, extraCa];
}
