/**
 * What the service wrote into index.html for this install (adapters/http/console.routes.ts):
 * `svc-public-prefix` (SVC_PUBLIC_PREFIX, the router's basename), `svc-base-path`
 * (SVC_BASE_PATH, the API root) and the case vocabulary, `svc-case-statuses` and
 * `svc-case-severities` (SVC_CASE_STATUSES, SVC_CASE_SEVERITIES: configuration,
 * CONTRACTS.md section 3), the very lists the API validates against. Read once, with no
 * request, so the first render waits on nothing.
 */
const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
const list = (name: string): string[] => meta(name).split(',').filter(Boolean);

export const publicPrefix = meta('svc-public-prefix') || '/svc';
export const basePath = meta('svc-base-path');
export const caseStatuses = list('svc-case-statuses');
export const caseSeverities = list('svc-case-severities');
