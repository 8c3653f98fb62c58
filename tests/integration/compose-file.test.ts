/**
 * compose.yaml, deploy/nginx.conf and the Dockerfile (docs/operations.md "Several
 * processes") cannot be run here (no Docker engine), so what can drift is checked: every
 * setting the service containers get is one the service reads (runtime/diagnostics.ts
 * SETTINGS), the roles and replica counts are as documented, the load balancer points at
 * the API's port, and the image carries every source folder the service runs from.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../../runtime/diagnostics.ts';
import { repoRoot } from '../support/fixtures.ts';
import { KURRENTDB_IMAGE } from '../support/kurrentdb-image.ts';

type Service = {
  environment?: Record<string, string>;
  deploy?: { replicas?: string | number };
  profiles?: string[];
  image?: string;
  build?: string;
  init?: boolean;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string; required?: boolean }>;
};
const compose = parse(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const { api, worker, lb, postgres, kurrentdb } = compose.services;
/** Compose's `${…}` interpolation of `expression`, as written in the file. */
const composeVariable = (expression: string) => `\${${expression}}`;

describe('compose.yaml', () => {
  it('runs API and worker processes of the built image on PostgreSQL, behind a load balancer, KurrentDB under its profile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'kurrentdb', 'lb', 'postgres', 'worker']);
    expect(api?.build).toBe('.');
    expect(api?.environment?.SVC_ROLE).toBe('api');
    expect(worker?.environment?.SVC_ROLE).toBe('worker');
    expect(api?.deploy?.replicas).toBe(composeVariable('SVC_API_REPLICAS:-3'));
    expect(worker?.deploy?.replicas).toBe(composeVariable('SVC_WORKER_REPLICAS:-2'));
    expect(postgres?.image).toMatch(/^postgres:/);
    expect(kurrentdb?.profiles).toEqual(['kurrentdb']);
    expect(lb?.image).toMatch(/^nginx:/);
  });

  it('starts each process after what it needs is healthy, under an init, with a health check of its own', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.init, name).toBe(true);
      expect(service.healthcheck?.test.length, name).toBeGreaterThan(1);
    }
    for (const service of [api, worker]) {
      expect(service?.healthcheck?.test).toEqual(['CMD', 'node', 'bin/healthcheck.js']);
      expect(service?.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        kurrentdb: { condition: 'service_healthy', required: false },
      });
    }
    expect(lb?.depends_on).toEqual({ api: { condition: 'service_healthy' } });
    expect(kurrentdb?.image).toBe(KURRENTDB_IMAGE);
  });

  it('publishes the load balancer on the loopback interface unless told otherwise, and gzips there too', () => {
    expect(lb?.ports).toEqual([`${composeVariable('SVC_PUBLISH_ADDRESS:-127.0.0.1')}:${composeVariable('SVC_PUBLISH_PORT:-8080')}:8080`]);
    const nginx = readFileSync(join(repoRoot, 'deploy/nginx.conf'), 'utf8');
    expect(nginx).toMatch(/^\s*gzip on;$/m);
    expect(nginx).toMatch(/location = \/lb-healthz/);
    expect(nginx).toMatch(/proxy_set_header X-Request-Id \$svc_request_id;/);
  });

  it('gives the service only settings it reads', () => {
    for (const service of [api, worker]) {
      const unknown = Object.keys(service?.environment ?? {}).filter((name) => !(name in SETTINGS));
      expect(unknown).toEqual([]);
    }
  });

  it('has the load balancer send to the API port, and the image run the compiled build with every folder it reads and the built console', () => {
    expect(api?.environment?.PORT).toBe('8080');
    expect(readFileSync(join(repoRoot, 'deploy/nginx.conf'), 'utf8')).toMatch(/server api:8080 resolve;/);
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    for (const folder of ['bin', 'runbooks', 'case-templates', 'packs']) {
      expect(dockerfile).toMatch(new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    }
    // The sources are compiled in the build stage; the image carries the output, and no tsx.
    for (const folder of ['domain', 'projections', 'adapters', 'runtime', 'tools']) {
      expect(dockerfile).toMatch(new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    }
    expect(dockerfile).toMatch(/^RUN node tools\/build\.mjs && npx vite build console$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/build\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/build\/console\/dist \.\/console\/dist$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev /m);
    expect(dockerfile).toMatch(/^RUN apt-get update && apt-get install -y --no-install-recommends git tini /m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .* CMD \["node", "bin\/healthcheck\.js"\]$/m);
  });
});

describe('bin/healthcheck.js', () => {
  /** Runs the health check with `env` against a local server answering `status` on `path` (null: nothing listens); resolves with its exit code. */
  async function check(env: Record<string, string>, answer: { path: string; status: number } | null): Promise<number> {
    const server = createServer((req, res) => res.writeHead(answer !== null && req.url === answer.path ? answer.status : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = String((server.address() as AddressInfo).port);
    if (answer === null) await new Promise<void>((resolve) => server.close(() => resolve()));
    const filled = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace('<port>', port)]));
    const exit = await promisify(execFile)(process.execPath, [join(repoRoot, 'bin/healthcheck.js')], { env: { PATH: process.env.PATH ?? '', ...filled } }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? -1,
    );
    if (answer !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
    return exit;
  }

  it("asks the API's /healthz below the base path, or a worker's metrics port, and fails on anything but 200", async () => {
    expect(await check({ PORT: '<port>' }, { path: '/healthz', status: 200 })).toBe(0);
    expect(await check({ PORT: '<port>', SVC_ROLE: 'api', SVC_BASE_PATH: '/svc' }, { path: '/svc/healthz', status: 200 })).toBe(0);
    expect(await check({ SVC_ROLE: 'worker', SVC_WORKER_METRICS_PORT: '<port>' }, { path: '/healthz', status: 200 })).toBe(0);
    expect(await check({ SVC_ROLE: 'worker', SVC_WORKER_METRICS_PORT: '<port>' }, { path: '/healthz', status: 503 })).toBe(1);
    expect(await check({ PORT: '<port>', SVC_BASE_PATH: '/svc' }, { path: '/healthz', status: 200 })).toBe(1);
    expect(await check({ PORT: '<port>' }, null)).toBe(1);
  });
});
