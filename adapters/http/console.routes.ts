/**
 * The web console (issue 26; docs/console.md): the single-page app built from `console/`
 * into `SVC_CONSOLE_DIR`, served under `SVC_PUBLIC_PREFIX`, where every `href` the API
 * hands out (`/cases/<id>`, `/runs/<id>`, `/alerts/<id>`) already points.
 *
 * The files hold no data and no secret, so they are served without a caller token; every
 * read the page makes goes through the API and is authenticated there, the browser's
 * gateway adding its request-bound assertion (SPEC.md "Authentication": no login of the
 * console's own). Hashed assets are cached for a year; every other path below the prefix
 * answers the app's `index.html` with the API root, the prefix and the case vocabulary
 * written into it, so a deep link works on first load. A service started before the console was built answers
 * 503 `console_not_built` there and nothing else changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from './context.ts';

export type ConsoleRouteDeps = {
  /** SVC_CONSOLE_DIR: the build output (`index.html`, `assets/`). */
  consoleDir: string;
  /** SVC_PUBLIC_PREFIX, no trailing slash. */
  publicPrefix: string;
  /** SVC_BASE_PATH: where the page finds the API, no trailing slash. */
  basePath: string;
  /** This install's case statuses and severities (SVC_CASE_STATUSES, SVC_CASE_SEVERITIES), offered by the page's filters and controls. */
  caseStatuses: readonly string[];
  caseSeverities: readonly string[];
};

// Inline styles are the graph library's and React's style props; scripts come only from
// this origin, and `connect-src 'self'` covers the same-origin WebSocket (CSP level 3).
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Writes where the app lives, where the API is and the case vocabulary into the built
 * `index.html`: a `<base href>` (the build's asset paths are relative to it) and `<meta>`
 * tags the app reads at start (console/src/config.ts), so its first render waits on no
 * extra read.
 */
export function consoleShell(html: string, deps: Omit<ConsoleRouteDeps, 'consoleDir'>): string {
  const meta = (name: string, content: string) => `<meta name="${name}" content="${escapeAttribute(content)}">`;
  const head =
    `<base href="${escapeAttribute(`${deps.publicPrefix}/`)}">` +
    meta('svc-public-prefix', deps.publicPrefix) +
    meta('svc-base-path', deps.basePath) +
    meta('svc-case-statuses', deps.caseStatuses.join(',')) +
    meta('svc-case-severities', deps.caseSeverities.join(','));
  return html.replace('<head>', `<head>${head}`);
}

/** The console's routes, to be mounted at `publicPrefix` before any authenticated route. */
export function consoleRoutes(deps: ConsoleRouteDeps) {
  const app = new Hono<AppEnv>();
  const indexFile = join(deps.consoleDir, 'index.html');
  // Read once: a rebuilt console is served after a restart, as the assets it names are.
  let shell: string | null = null;
  const page = () => {
    if (shell === null && existsSync(indexFile)) shell = consoleShell(readFileSync(indexFile, 'utf8'), deps);
    return shell;
  };
  const securityHeaders = {
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };

  app.get(
    '/assets/*',
    serveStatic({
      root: deps.consoleDir,
      rewriteRequestPath: (path) => path.slice(path.indexOf('/assets/')),
      onFound: (_path, c) => {
        c.header('cache-control', 'public, max-age=31536000, immutable');
        c.header('x-content-type-options', 'nosniff');
      },
    }),
  );
  app.get('/assets/*', (c) => c.json({ detail: 'no such console asset', code: 'not_found', params: {} }, 404));
  app.get('*', (c) => {
    const html = page();
    if (html === null) {
      return c.json({ detail: `the console is not built: run \`make console\` (looked in ${deps.consoleDir})`, code: 'console_not_built', params: {} }, 503);
    }
    return c.html(html, 200, { ...securityHeaders, 'cache-control': 'no-cache' });
  });
  return app;
}
