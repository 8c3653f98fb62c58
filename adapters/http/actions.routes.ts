/**
 * `GET /actions` (SPEC.md "Actions and connections", "Action registry entry"):
 * the registry array `[{name, input_schema, output_schema, connection_kind, implemented,
 * risk}]`, sorted by name, with JSON Schemas generated from the schemas that validate step inputs.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';

export function actionRoutes(deps: HttpDeps) {
  const read = requirePermission('read', 'svc:runbooks:read', deps.permissions);
  return new Hono<AppEnv>().get('/actions', describeRoute({ summary: 'The action registry', tags: ['actions'] }), read, (c) => c.json(deps.actions.entries()));
}
