/**
 * `GET /actions` (SPEC.md "Actions and connections", "Action registry entry"):
 * the registry array `[{name, input_schema, output_schema, connection_kind, implemented,
 * risk}]`, sorted by name, with JSON Schemas generated from the schemas that validate step inputs.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { actionRegistryEntrySchema } from '../action-registry/registry.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';

/** What the action catalogue reads of the service (adapters/http/deps.ts). */
export type ActionRouteDeps = Pick<HttpDeps, 'actions' | 'permissions'>;

export function actionRoutes(deps: ActionRouteDeps) {
  const read = requirePermission('read', 'svc:runbooks:read', deps.permissions);
  return new Hono<AppEnv>().get(
    '/actions',
    describeRoute({
      summary: 'The action registry',
      tags: ['actions'],
      responses: { 200: jsonAnswer(v.array(actionRegistryEntrySchema), 'Every action, sorted by name') },
    }),
    read,
    (c) => c.json(deps.actions.entries()),
  );
}
