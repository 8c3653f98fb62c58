/**
 * The pager_a webhook signature (SPEC.md "Webhook intake": `X-Pager-Signature`, v1
 * HMAC-SHA256 of the raw body keyed by the subscription's signing secret). As PagerDuty's
 * v3 webhooks send it: `v1=<hex>`, several comma-separated while the secret rotates; the
 * request is genuine when any `v1` value matches. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Whether `header` carries a v1 signature of `rawBody` under `secret`; false for a missing or malformed header. */
export function pagerASignatureValid(secret: string, rawBody: Uint8Array, header: string | undefined): boolean {
  if (!header || secret === '') return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  let valid = false;
  for (const part of header.split(',')) {
    const match = /^\s*v1=([0-9a-f]{64})\s*$/i.exec(part);
    if (!match?.[1]) continue;
    // Every candidate is compared, so the time taken does not tell which one matched.
    if (timingSafeEqual(Buffer.from(match[1], 'hex'), expected)) valid = true;
  }
  return valid;
}
