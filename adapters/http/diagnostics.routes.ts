/**
 * `GET /diagnostics` (SPEC.md "Metrics, audit, retention, diagnostics"): the
 * `suite-diagnostics/v1` document (runtime/diagnostics.ts) for install-wide admins
 * (`svc:admin:read` on exchange tokens). Never cached: it describes this moment.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { diagnosticsDocumentSchema } from '../diagnostics/document.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';

/** What the diagnostics route reads of the service (adapters/http/deps.ts). */
export type DiagnosticsRouteDeps = Pick<HttpDeps, 'diagnostics' | 'permissions'>;

/** `GET /diagnostics`; 403 `forbidden` without a realm admin grant. */
export function diagnosticsRoutes(deps: DiagnosticsRouteDeps) {
  return new Hono<AppEnv>().get(
    '/diagnostics',
    describeRoute({
      summary: 'suite-diagnostics/v1: versions, migrations, health, configuration presence and type, error counts by class',
      tags: ['diagnostics'],
      responses: { 200: jsonAnswer(diagnosticsDocumentSchema, 'The diagnostics document') },
    }),
    requirePermission('admin', 'svc:admin:read', deps.permissions, null),
    async (c) => {
      c.header('cache-control', 'no-store');
      return c.json(await deps.diagnostics());
    },
  );
}
