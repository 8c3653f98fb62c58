/**
 * The web console's files as the service serves them (adapters/http/console.routes.ts,
 * docs/console.md), and `svc dev gateway` carrying the console's `WS /ws` upgrade with a
 * bound assertion. The served build here is a stand-in directory, so this file does not
 * depend on `make console`; tests/e2e/console.test.ts drives the real build in Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ensureDevIdentity } from '../../adapters/identity/dev-identity.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { DevGateway } from '../../runtime/cli/dev-gateway.ts';
import { gatewayAs } from '../support/dev-gateway.ts';
import { startInProcessService, type InProcessService } from '../support/in-process-service.ts';

const indexHtml =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><script type="module" src="./assets/app-1a2b.js"></script></head><body></body></html>';

function consoleBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-build-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), indexHtml);
  writeFileSync(join(dir, 'assets', 'app-1a2b.js'), 'console.log("app")');
  return dir;
}

/** The first frame of a WebSocket at `url`, or the HTTP status of its refused upgrade. */
function firstFrame(url: string): Promise<{ frame?: Record<string, unknown>; status?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => reject(new Error(`no answer from ${url}`)), 10_000);
    socket.once('message', (data) => {
      clearTimeout(timer);
      socket.close();
      resolve({ frame: JSON.parse(String(data)) });
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode, body });
      });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('the console under SVC_PUBLIC_PREFIX', () => {
  let svc: InProcessService;
  let build: string;

  beforeAll(async () => {
    build = consoleBuild();
    svc = await startInProcessService({ server: false }, { listen: true, extraEnv: { SVC_CONSOLE_DIR: build } });
  });
  afterAll(async () => {
    await svc.close();
    rmSync(build, { recursive: true, force: true });
  });

  it('answers the app for the prefix and every deep link below it, with where it lives and where the API is, and no caller token', async () => {
    for (const path of ['/svc', '/svc/', '/svc/cases/7a1c1d5e-4a55-4c1a-9d55-7f3f9e0f1b2c', '/svc/runs/abc', '/svc/approvals']) {
      const answer = await fetch(`${svc.url}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await answer.text();
      expect(html).toContain(
        '<head><base href="/svc/"><meta name="svc-public-prefix" content="/svc"><meta name="svc-base-path" content="">' +
          '<meta name="svc-case-statuses" content="new,in_progress,resolved,closed"><meta name="svc-case-severities" content="low,medium,high,critical">',
      );
      expect(html).toContain('./assets/app-1a2b.js');
      expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves hashed assets for a year, answers a missing one 404 in the API shape, and never leaves the build directory', async () => {
    const asset = await fetch(`${svc.url}/svc/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log("app")');

    const missing = await fetch(`${svc.url}/svc/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
    for (const path of ['/svc/assets/..%2f..%2f..%2fetc%2fpasswd', '/svc/assets/%2e%2e/%2e%2e/etc/passwd']) {
      const outside = await fetch(`${svc.url}${path}`);
      expect(await outside.text(), path).not.toContain('root:');
    }
  });

  it('leaves the API as it was: its routes still need a caller token', async () => {
    expect((await fetch(`${svc.url}/cases`)).status).toBe(401);
    expect(await (await fetch(`${svc.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });
});

describe('the console on another prefix and API root', () => {
  it('follows SVC_PUBLIC_PREFIX, SVC_BASE_PATH and the configured case statuses', async () => {
    const build = consoleBuild();
    const svc = await startInProcessService(
      { server: false },
      {
        listen: true,
        extraEnv: {
          SVC_CONSOLE_DIR: build,
          SVC_PUBLIC_PREFIX: '/soc/ir/',
          SVC_BASE_PATH: '/api',
          SVC_CASE_STATUSES: 'open,triage,closed',
          SVC_CASE_CLOSED_STATUSES: 'closed',
        },
      },
    );
    // svc.url ends with the API root; the console lives beside it, on the origin.
    const origin = new URL(svc.url).origin;
    try {
      const html = await (await fetch(`${origin}/soc/ir/cases/x`)).text();
      expect(html).toContain('<base href="/soc/ir/"><meta name="svc-public-prefix" content="/soc/ir"><meta name="svc-base-path" content="/api">');
      expect(html).toContain('<meta name="svc-case-statuses" content="open,triage,closed">');
      expect((await fetch(`${origin}/soc/ir/assets/app-1a2b.js`)).status).toBe(200);
      expect((await fetch(`${origin}/svc/`)).status).toBe(404);
      expect((await fetch(`${origin}/api/cases`)).status).toBe(401);
    } finally {
      await svc.close();
      rmSync(build, { recursive: true, force: true });
    }
  });

  it('answers 503 console_not_built in words when the console was never built, and the API works', async () => {
    const svc = await startInProcessService({ server: false }, { listen: true, extraEnv: { SVC_CONSOLE_DIR: join(tmpdir(), 'svc-no-console-here') } });
    try {
      const answer = await fetch(`${svc.url}/svc/cases/x`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ code: 'console_not_built', detail: expect.stringContaining('make console'), params: {} });
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    } finally {
      await svc.close();
    }
  });

  it('refuses a prefix that would put the console over the API', () => {
    for (const prefix of ['/', 'svc', '/svc/../x', '/a b']) expect(() => loadConfig({ SVC_PUBLIC_PREFIX: prefix }), prefix).toThrow(/SVC_PUBLIC_PREFIX/);
    expect(loadConfig({ SVC_PUBLIC_PREFIX: '/soc/ir/' }).publicPrefix).toBe('/soc/ir');
  });
});

describe('svc dev gateway and the console WebSocket', () => {
  let svc: InProcessService;
  let gateway: DevGateway;
  let identityDir: string;

  beforeAll(async () => {
    identityDir = mkdtempSync(join(tmpdir(), 'svc-gw-identity-'));
    const identity = await ensureDevIdentity(identityDir);
    svc = await startInProcessService(
      { server: false },
      { listen: true, extraEnv: { SVC_IDENTITY_ISSUER: identity.issuer, SVC_IDENTITY_JWKS: JSON.stringify(identity.jwks), SVC_CONSOLE_DIR: identityDir } },
    );
    gateway = await gatewayAs(identity, svc.url, 'console@example.com', 'analyst');
  });
  afterAll(async () => {
    await gateway.close();
    await svc.close();
    rmSync(identityDir, { recursive: true, force: true });
  });

  it('opens WS /ws for the browser with an assertion bound to GET /ws', async () => {
    const { frame } = await firstFrame(`${gateway.url.replace(/^http/, 'ws')}/ws`);
    expect(frame).toMatchObject({ type: 'hello' });
  });

  it("passes the service's refusal of an upgrade back as it came", async () => {
    const refused = await firstFrame(`${gateway.url.replace(/^http/, 'ws')}/elsewhere`);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body ?? '{}')).toMatchObject({ code: 'not_found' });
  });
});
