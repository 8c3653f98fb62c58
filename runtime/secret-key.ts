/**
 * The key that encrypts secrets at rest (SPEC.md "Authentication", secrets paragraph;
 * CONTRACTS.md section 1, SVC_SECRET_KEY).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// 32 bytes in base64 (standard or url-safe alphabet, padding optional): 43 characters.
const KEY_BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/;

/**
 * The 32-byte secret key. SVC_SECRET_KEY, when set, must be base64 of exactly 32 bytes.
 * When it is unset: with DATABASE_URL set it throws (every process of a shared database must
 * share the key); without, the key is generated once into `<dataDir>/secret.key` (base64,
 * mode 0600) and reused. Errors name the variable or file, never the value.
 */
export function loadSecretKey(env: { SVC_SECRET_KEY?: string; DATABASE_URL?: string }, dataDir: string): Uint8Array {
  if (env.SVC_SECRET_KEY !== undefined) return decodeKey(env.SVC_SECRET_KEY, 'SVC_SECRET_KEY');
  if (env.DATABASE_URL) throw new Error('SVC_SECRET_KEY is required when DATABASE_URL is set');
  const path = join(dataDir, 'secret.key');
  if (!existsSync(path)) createKeyFile(dataDir, path);
  return decodeKey(readFileSync(path, 'utf8'), path);
}

function createKeyFile(dataDir: string, path: string): void {
  mkdirSync(dataDir, { recursive: true });
  // Written aside then hard-linked into place: link fails when the file exists, so two
  // processes starting at once keep one key and neither reads a half-written file.
  const pending = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(pending, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(pending, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(pending);
  }
}

function decodeKey(value: string, source: string): Uint8Array {
  const trimmed = value.trim();
  if (!KEY_BASE64.test(trimmed)) throw new Error(`${source} must be base64 of exactly 32 bytes`);
  return new Uint8Array(Buffer.from(trimmed, 'base64'));
}
