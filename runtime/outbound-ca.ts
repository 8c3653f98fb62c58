/** The extra CA of outbound TLS (SVC_OUTBOUND_CA_FILE, docs/configuration.md). */
import { readFileSync } from 'node:fs';

/** SVC_OUTBOUND_CA_FILE's PEM text; a start error naming the variable when it cannot be read or holds no certificate. */
export function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`SVC_OUTBOUND_CA_FILE cannot be read: ${path}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`SVC_OUTBOUND_CA_FILE holds no PEM certificate: ${path}`);
  return pem;
}
