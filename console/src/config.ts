/**
 * Where the console lives and where the API is, as the service wrote them into
 * index.html (adapters/http/console.routes.ts): `svc-public-prefix` (SVC_PUBLIC_PREFIX,
 * the router's basename) and `svc-base-path` (SVC_BASE_PATH, the API root).
 */
const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

export const publicPrefix = meta('svc-public-prefix') || '/svc';
export const basePath = meta('svc-base-path');
