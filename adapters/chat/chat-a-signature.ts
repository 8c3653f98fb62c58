/**
 * The chat_a request signature (SPEC.md "Webhook intake": `POST /webhooks/chat-interactions`
 * is verified with the chat product's signing secret). As Slack signs requests:
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(secret, "v0:" + X-Slack-Request-Timestamp + ":" +
 * raw body)>`, and a timestamp more than five minutes from our clock is refused, so a
 * captured request cannot be replayed later. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from our clock, seconds (Slack's documented window). */
export const CHAT_A_TIMESTAMP_TOLERANCE_S = 300;

export type ChatASignatureCheck = 'valid' | 'stale' | 'invalid';

/**
 * Whether `signature` signs `rawBody` at `timestamp` (epoch seconds, as sent) under `secret`,
 * and the timestamp is within the tolerance of `now`. A missing, blank or malformed value is
 * `invalid`; a correct signature on an old or future timestamp is `stale`.
 */
export function checkChatASignature(
  secret: string,
  rawBody: Uint8Array,
  timestamp: string | undefined,
  signature: string | undefined,
  now: Date,
): ChatASignatureCheck {
  if (secret === '' || !timestamp || !/^\d{1,12}$/.test(timestamp)) return 'invalid';
  const given = /^v0=([0-9a-f]{64})$/i.exec(signature?.trim() ?? '')?.[1];
  if (!given) return 'invalid';
  const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest();
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) return 'invalid';
  return Math.abs(now.getTime() / 1000 - Number(timestamp)) > CHAT_A_TIMESTAMP_TOLERANCE_S ? 'stale' : 'valid';
}
