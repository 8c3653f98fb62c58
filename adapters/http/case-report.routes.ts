/**
 * `GET /cases/<id>/report?format=json | md | pdf` (docs/configuration.md "Case report";
 * issue 50): the case report for anyone who may read the case, as the JSON document of
 * docs/case-report.schema.json, as Markdown rendered from it, or as a PDF of that Markdown.
 * The same case gives the same bytes: nothing in the report depends on the request's time
 * (the PDF's dates are the case's last change).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { caseReportMarkdown, caseReportSchema } from '../../domain/reports/case-report.ts';
import { caseReport } from '../../projections/reports/case-report.queries.ts';
import { markdownPdf } from '../reports/pdf.ts';
import { uuid } from '../shared/shapes.ts';
import { caseRouteGuards } from './case-access.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { validate } from './validation.ts';

export type CaseReportRouteDeps = Pick<HttpDeps, 'db' | 'permissions'>;

export function caseReportRoutes(deps: CaseReportRouteDeps) {
  const { access, read } = caseRouteGuards(deps.db, deps.permissions);
  return new Hono<AppEnv>().get(
    '/cases/:id/report',
    describeRoute({
      summary: 'The case report: header, timeline, tasks, observables with verdicts, techniques, evidence, approvals, containment and runs',
      tags: ['cases'],
      responses: {
        200: {
          description: 'The report: JSON (format=json), its Markdown (format=md) or a PDF of that (format=pdf)',
          content: {
            ...jsonAnswer(caseReportSchema, '').content,
            'text/markdown': { schema: { type: 'string' } },
            'application/pdf': { schema: { type: 'string', format: 'binary' } },
          },
        },
      },
    }),
    read,
    validate('param', v.object({ id: uuid })),
    validate('query', v.object({ format: v.optional(v.picklist(['json', 'md', 'pdf']), 'json') })),
    async (c) => {
      const row = await access.visible(c.get('principal'), c.req.valid('param').id);
      const report = await caseReport(deps.db, row);
      const format = c.req.valid('query').format;
      const file = `${row.key}-report.${format}`;
      if (format === 'json') return c.json(report);
      const markdown = caseReportMarkdown(report);
      const disposition = { 'content-disposition': `attachment; filename="${file}"` };
      if (format === 'md') return c.body(markdown, 200, { 'content-type': 'text/markdown; charset=utf-8', ...disposition });
      const pdf = await markdownPdf(markdown, { title: `${row.key} ${row.title}`, createdAt: new Date(row.updated_at) });
      return c.body(new Uint8Array(pdf), 200, { 'content-type': 'application/pdf', ...disposition });
    },
  );
}
