/**
 * `GET /schemas/runbook.json` (ours; docs/configuration.md "Runbook editor support"): the runbook
 * document's JSON Schema, for an editor's YAML language server. No caller token: like
 * `/openapi.json`, it says nothing about this install's data.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { runbookJsonSchema } from '../runbooks/json-schema.ts';
import type { AppEnv } from './context.ts';

/** The route, answering `application/schema+json`. */
export function runbookSchemaRoute() {
  return new Hono<AppEnv>().get(
    '/schemas/runbook.json',
    describeRoute({
      summary: 'JSON Schema (draft-07) of a runbook document, for editors',
      tags: ['runbooks'],
      security: [],
      responses: {
        200: {
          description: 'The schema; POST /runbooks/validate checks what it cannot say',
          content: { 'application/schema+json': { schema: { type: 'object' } } },
        },
      },
    }),
    (c) => c.body(JSON.stringify(runbookJsonSchema()), 200, { 'content-type': 'application/schema+json' }),
  );
}
