/**
 * Checks answers against the `/openapi.json` the service serves (issue 19): the
 * operation is found by method and path template, its response by status (exact, then
 * `4XX`/`5XX`, then `default`), and the JSON body is validated with ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). An answer whose operation or status the document
 * does not declare, or whose body does not fit, is a mismatch: the document cannot drift
 * from what is served without a test failing.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;
type Operation = { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type AnswerChecker = {
  /** Null when `body` fits what `method path` declares for `status`; else what is wrong. */
  mismatch: (method: string, path: string, status: number, contentType: string | null, body: unknown) => string | null;
};

/** A checker for `doc`; compiled validators are cached per operation and status. */
export function answerChecker(doc: Document): AnswerChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  // The operations' `#/components/...` references resolve against this copy of the document's components.
  ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
  const rooted = (schema: Schema) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Schema;
  // Templates with more literal segments first: /cases/assignable-users before /cases/{id}.
  const templates = Object.keys(doc.paths)
    .map((t) => ({
      t,
      re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: t.split('/').filter((s) => s && !s.startsWith('{')).length,
    }))
    .sort((a, b) => b.literal - a.literal);
  const compiled = new Map<string, ValidateFunction>();

  return {
    mismatch(method, path, status, contentType, body) {
      const bare = path.split('?')[0] ?? path;
      const candidates = templates.filter((x) => x.re.test(bare) && doc.paths[x.t]?.[method.toLowerCase()]);
      const template = candidates[0]?.t;
      if (template === undefined) return status === 404 ? null : `${method} ${bare}: no such operation in /openapi.json`;
      const op = doc.paths[template]?.[method.toLowerCase()] as Operation;
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses?.[k]);
      if (key === undefined) return `${method} ${template}: status ${status} is not declared`;
      const content = op.responses?.[key]?.content;
      if (!content) return body === null || body === undefined || body === '' ? null : `${method} ${template} ${status}: declares no body`;
      const media = (contentType ?? '').split(';')[0]?.trim() ?? '';
      const declared = content[media] ?? (media.endsWith('json') ? content['application/json'] : undefined);
      if (!declared) return `${method} ${template} ${status}: ${media || 'no content type'} is not a declared media type`;
      if (!declared.schema || !media.endsWith('json')) return null;
      const id = `${method} ${template} ${key} ${media}`;
      let validate = compiled.get(id);
      if (!validate) {
        validate = ajv.compile(rooted(declared.schema));
        compiled.set(id, validate);
      }
      if (validate(body)) return null;
      return `${method} ${template} ${status}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
    },
  };
}
