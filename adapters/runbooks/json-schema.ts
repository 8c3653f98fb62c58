/**
 * The runbook document's JSON Schema (draft-07, which editors' YAML language servers all
 * read), generated from the valibot schemas the parser checks runbooks with
 * (domain/runbooks/document.ts), so an editor flags what the service would refuse:
 * an unknown or misspelt field, a wrong type, a value out of bounds. Served at
 * `GET /schemas/runbook.json`, printed by `svc runbook-schema` and committed as
 * docs/runbook.schema.json (docs/configuration.md "Runbook editor support").
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { RunbookDocument } from '../../domain/runbooks/document.ts';

let generated: Record<string, unknown> | null = null;

/** The JSON Schema of a runbook document, as a JSON value (generated once per process). */
export function runbookJsonSchema(): Record<string, unknown> {
  generated ??= {
    // `finite` has no JSON Schema form, and needs none: a JSON number is always finite.
    ...toJsonSchema(RunbookDocument, { target: 'draft-07', ignoreActions: ['finite'] }),
    $comment: 'Generated from domain/runbooks/document.ts; references between steps, actions, templates and cron syntax are checked by POST /runbooks/validate',
  };
  return generated;
}

/** The schema as pretty-printed JSON text with a final newline: docs/runbook.schema.json's bytes. */
export function runbookJsonSchemaText(): string {
  return `${JSON.stringify(runbookJsonSchema(), null, 2)}\n`;
}
