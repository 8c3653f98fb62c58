/**
 * A throwaway self-signed certificate for IP 127.0.0.1, made by the `openssl` CLI, for
 * the HTTPS peers the tests run (Git source, OAuth2 token endpoint).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `key` and `cert` are PEM text; `certFile` is the certificate's path, for a CA-file setting. */
export type TestCertificate = { key: string; cert: string; certFile: string };

/** Writes a fresh key and certificate (valid one day) into `dir` (default: a new temp dir). */
export function selfSignedCertificate(dir: string = mkdtempSync(join(tmpdir(), 'svc-cert-'))): TestCertificate {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
