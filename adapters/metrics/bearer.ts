/**
 * The metrics credential (SPEC.md "Metrics": optional bearer `METRICS_TOKEN`), shared by
 * the API's `GET /metrics` and the worker's private metrics port.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Whether an `Authorization` header value admits a metrics scrape: always when no token
 * is configured, else only `Bearer <token>`, compared in constant time.
 */
export function metricsAuthorized(header: string | undefined, token: string | null): boolean {
  if (token === null) return true;
  const presented = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}
