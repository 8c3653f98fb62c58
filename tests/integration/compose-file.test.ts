/**
 * compose.yaml, deploy/nginx.conf and the Dockerfile (docs/operations.md "Several
 * processes") cannot be run here (no Docker engine), so what can drift is checked: every
 * setting the service containers get is one the service reads (runtime/diagnostics.ts
 * SETTINGS), the roles and replica counts are as documented, the load balancer points at
 * the API's port, and the image carries every source folder the service runs from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../../runtime/diagnostics.ts';
import { repoRoot } from '../support/fixtures.ts';

type Service = { environment?: Record<string, string>; deploy?: { replicas?: string | number }; profiles?: string[]; image?: string; build?: string };
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
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
  });
});
