/**
 * The case report's JSON Schema (draft 2020-12), generated from the valibot schema of the
 * report (domain/reports/case-report.ts), so the published copy cannot drift from what the
 * service answers: printed by `svc case-report-schema` and committed as
 * docs/case-report.schema.json (docs/configuration.md "Case report").
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { caseReportSchema } from '../../domain/reports/case-report.ts';

/** The schema as pretty-printed JSON text with a final newline: docs/case-report.schema.json's bytes. */
export function caseReportJsonSchemaText(): string {
  // `ref` names the OpenAPI component; it is no JSON Schema keyword.
  const { ref: _component, ...generated } = toJsonSchema(caseReportSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  const schema = {
    ...generated,
    title: 'Case report, version 1',
    $comment: 'Generated from domain/reports/case-report.ts (make case-report-schema); GET /cases/<id>/report?format=json answers it',
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
