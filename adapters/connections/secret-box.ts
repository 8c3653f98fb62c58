/**
 * Encryption at rest for connection secrets and webhook tokens (SPEC.md "Connection",
 * "Authentication": secrets paragraph): AES-256-GCM with a key from SVC_SECRET_KEY.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens secrets; `aad` names the record a sealed value belongs to. */
export type SecretBox = {
  seal: (plaintext: string, aad: string) => string;
  open: (sealed: string, aad: string) => string;
};

/**
 * A box over a 32-byte key. `seal` gives 'v1.' + base64url(nonce | ciphertext | tag) with a
 * fresh random 12-byte nonce. The `aad` (for example the connection id) is authenticated,
 * so a sealed value copied to another record fails to open. `open` throws an Error that
 * carries no data for a wrong version, a wrong key, a wrong aad or any tampering.
 * Throws at creation when the key is not 32 bytes.
 */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.byteLength !== 32) throw new Error('the secret box key must be 32 bytes');
  const keyCopy = Buffer.from(key);
  return {
    seal(plaintext, aad) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyCopy, nonce);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
    },
    open(sealed, aad) {
      const raw = sealed.startsWith(VERSION) ? Buffer.from(sealed.slice(VERSION.length), 'base64url') : null;
      if (!raw || raw.byteLength < NONCE_BYTES + TAG_BYTES) throw new Error('sealed secret is malformed');
      const decipher = createDecipheriv('aes-256-gcm', keyCopy, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.byteLength - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.byteLength - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('sealed secret failed authentication (wrong key, wrong record or tampered)');
      }
    },
  };
}
