#!/usr/bin/env node
// The image's HEALTHCHECK (Dockerfile, compose.yaml; docs/operations.md "Health checks"):
// exit 0 when this container's process answers its health endpoint within 2 s, else 1.
// An API process (SVC_ROLE all or api) answers GET <SVC_BASE_PATH>/healthz on PORT; a
// worker-only one answers GET /healthz on its metrics port (SVC_WORKER_METRICS_PORT), 200
// while its loop polls.
const env = process.env;
const url =
  env.SVC_ROLE === 'worker'
    ? `http://127.0.0.1:${env.SVC_WORKER_METRICS_PORT || 9101}/healthz`
    : `http://127.0.0.1:${env.PORT || 8080}${env.SVC_BASE_PATH || ''}/healthz`;
fetch(url, { signal: AbortSignal.timeout(2000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
