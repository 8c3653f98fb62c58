/**
 * A route fuzzer driven by the service's own `/openapi.json` (issue 19): every operation
 * the document lists is called with hostile variants of its path parameters, query
 * parameters and JSON body (NUL and unpaired surrogates, upper-case and malformed ids,
 * numbers JavaScript reads loosely, arrays and scalars where objects belong, JSON nested
 * 10,000 deep, oversized strings, each body property replaced by a wrong type), and with
 * a minimal valid body built from the declared schema. No answer may be a 5xx, every
 * refusal must be in one of the spec's error shapes, nothing may reach the 500 handler,
 * and the process must still answer at the end. A JSON array where the document declares
 * an object, and the minimal valid body sent as `text/plain`, are refused by every
 * operation (issue 45). Bounded: a fixed set of variants per operation, on loopback only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { peerEngines } from '../support/service-process.ts';
import { answerChecker, type AnswerChecker } from '../support/openapi-check.ts';
import { sample, type JsonSchema } from '../support/openapi-sample.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const root = testPerson('fuzz-root@example.com', [{ team: null, role: 'admin' }]);
const bootstrap = 'fuzz-bootstrap-secret';

type Operation = { parameters?: { name: string; in: string; schema?: JsonSchema }[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } };

const runbook = manualNoteRunbook('fuzz-manual', 'fuzzed');

const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
const hostileStrings = ['\u0000', 'a\ud800b', 'x'.repeat(10_000), '../../etc/passwd', '1e12', '-1', 'NaN', ' ', '%00'];

/** Percent-encodes `s`; an unpaired surrogate, which has no UTF-8 form, goes as the bytes a careless encoder would send (ED A0 80). */
const encode = (s: string) =>
  s
    .split(/([\ud800-\udfff])/u)
    .map((part) => (/^[\ud800-\udfff]$/u.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

/** Hostile replacements of one property value. */
const wrongValues: unknown[] = [null, 12, [], {}, ['\u0000'], { a: [1] }, 'x\u0000y', 'x'.repeat(100_000), -1e308, true];

describe.each(peerEngines)('route fuzz on $name', ({ server }) => {
  let svc: InProcessService;
  let doc: { paths: Record<string, Record<string, Operation>> };
  let caseId = '';
  const answers: { label: string; status: number; text: string }[] = [];
  /** Answers that must be refusals: an array for an object body, a JSON body sent as text. */
  const mustRefuse: { label: string; status: number }[] = [];
  const undeclared: string[] = [];
  let checker: AnswerChecker;

  const send = async (method: string, path: string, body: string | undefined, label: string, bodyType = 'application/json') => {
    const webhook = path.startsWith('/webhooks/');
    const token = webhook ? null : await assertionAs(svc, root, method, path);
    const headers: Record<string, string> = {
      ...(token ? { authorization: `Bearer ${token}` } : { 'x-svc-token': bootstrap }),
      ...(body === undefined ? {} : { 'content-type': bodyType }),
    };
    const res = await svc.request(path, { method, headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(20_000) });
    const contentType = res.headers.get('content-type');
    const json = (contentType ?? '').includes('json');
    const text = res.status === 200 && !json ? '' : await res.text();
    answers.push({ label: `${method} ${path.slice(0, 120)} [${label}]`, status: res.status, text });
    let answered: unknown = text;
    try {
      answered = json && text !== '' ? JSON.parse(text) : text;
    } catch {
      // Not JSON although it says so: the shape check below reports it.
    }
    const problem = res.status < 500 ? checker.mismatch(method, path, res.status, contentType, answered) : null;
    if (problem !== null) undeclared.push(`[${label}] ${problem}`);
  };

  /** Sends a variant that must be refused, and keeps its answer for the check at the end. */
  const refusal = async (method: string, path: string, body: string | undefined, label: string, bodyType?: string) => {
    await send(method, path, body, label, bodyType);
    const answer = answers.at(-1);
    if (answer) mustRefuse.push({ label: answer.label, status: answer.status });
  };

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { runbooks: { 'fuzz-manual.yml': runbook }, extraEnv: { SVC_DETECTOR_BOOTSTRAP_SECRET: bootstrap, SVC_ALLOW_PRIVATE_TARGETS: 'false' } },
    );
    doc = (await (await svc.request('/openapi.json')).json()) as typeof doc;
    checker = answerChecker(doc as Parameters<typeof answerChecker>[0]);
    const token = await assertionAs(svc, root, 'POST', '/cases');
    const created = await svc.request('/cases', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Fuzz target', severity: 'high' }),
    });
    caseId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => svc?.close());

  it('answers every operation of /openapi.json without a 5xx and in the error shapes', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.length).toBeGreaterThan(80);

    for (const { path, method, op } of operations) {
      const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      const fill = (value: (name: string) => string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(value(name)));
      const pathVariants: [string, string][] =
        params.length === 0
          ? [['as is', path]]
          : [
              ['real case id', fill((n) => (n === 'slug' ? 'fuzz-manual' : caseId))],
              ['upper-case id', fill((n) => (n === 'slug' ? 'FUZZ-MANUAL' : caseId.toUpperCase()))],
              ['random id', fill(() => randomUUID())],
              ...hostileStrings.slice(0, 4).map((s, i): [string, string] => [`hostile id ${i}`, fill(() => s)]),
            ];
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const queryVariants = query.length === 0 ? [''] : ['', ...hostileStrings.map((s) => `?${query.map((q) => `${q}=${encode(s)}`).join('&')}`)];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const valid = bodySchema ? sample(bodySchema, { caseId }) : undefined;
      const bodies: [string, string | undefined][] = !op.requestBody
        ? [['no body', undefined]]
        : [
            ['minimal valid', JSON.stringify(valid ?? {})],
            ['empty object', '{}'],
            ['array', '[{}]'],
            ['null', 'null'],
            ['string', '"x"'],
            ['not json', '{"a":'],
            ['deep', deep],
            ['nul key', '{"\\u0000":1}'],
            ...Object.keys(bodySchema?.properties ?? {}).flatMap((key) =>
              wrongValues.map((wrong, i): [string, string] => [`${key} wrong ${i}`, JSON.stringify({ ...(valid as object), [key]: wrong })]),
            ),
          ];

      for (const [pathLabel, target] of pathVariants) {
        for (const q of queryVariants) await send(method, `${target}${q}`, bodies[0]?.[1], `${pathLabel} ${q ? 'hostile query' : ''}`);
        // Body variants go to the first path variant (a real id) and to one hostile id.
        if (pathLabel === 'real case id' || pathLabel === 'as is' || pathLabel === 'upper-case id') {
          for (const [bodyLabel, body] of bodies.slice(1)) await send(method, target, body, `${pathLabel} ${bodyLabel}`);
          if (bodySchema) {
            if (describesObject(bodySchema)) await refusal(method, target, '[]', `${pathLabel} empty array`);
            if (Object.keys(op.requestBody?.content ?? {}).every((type) => type === 'application/json'))
              await refusal(method, target, bodies[0]?.[1], `${pathLabel} minimal valid as text/plain`, 'text/plain');
          }
        }
      }
    }

    // The variants reach the handlers, not only the validators: the minimal valid bodies and real ids are taken.
    expect(answers.filter((a) => a.status < 300).length).toBeGreaterThan(50);
    expect(mustRefuse.length).toBeGreaterThan(50);
    expect(mustRefuse.filter((a) => a.status < 400).map((a) => `${a.label}: ${a.status}`)).toEqual([]);
    const serverErrors = answers.filter((a) => a.status >= 500);
    expect(serverErrors.map((a) => `${a.label}: ${a.status} ${a.text.slice(0, 200)}`)).toEqual([]);
    const outsideShapes = answers.filter((a) => a.status >= 400 && !inErrorShape(a.status, a.text));
    expect(outsideShapes.map((a) => `${a.label}: ${a.status} ${a.text.slice(0, 200)}`)).toEqual([]);
    // Every answer, refusals included, fits what its operation declares in the same document.
    expect(undeclared.slice(0, 20)).toEqual([]);
    expect(svc.errors().map((e) => `${String(e.msg)} ${JSON.stringify(e.err ?? '').slice(0, 300)}`)).toEqual([]);
    expect((await svc.request('/healthz')).status).toBe(200);
  }, 600_000);
});

/** Whether a declared body schema takes only a JSON object: an object, or a choice of only objects. */
function describesObject(schema: JsonSchema): boolean {
  const options = schema.anyOf ?? schema.oneOf;
  return options ? options.every(describesObject) : schema.type === 'object';
}

/** `{detail, code, params}` (SPEC.md "Errors" 1), or for a 422 the framework shape `{detail: [{loc, msg, type}]}` (CONTRACTS.md section 3). */
function inErrorShape(status: number, text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b).sort().join(',');
  if (keys === 'code,detail,params') return typeof b.code === 'string' && typeof b.params === 'object' && b.params !== null;
  if (status === 422 && keys === 'detail' && Array.isArray(b.detail)) {
    return b.detail.every(
      (i: Record<string, unknown>) => Array.isArray(i.loc) && typeof i.msg === 'string' && typeof i.type === 'string' && Object.keys(i).length === 3,
    );
  }
  // AI refusals on triage and authoring (SPEC.md "Errors" 4): 422 `{detail: {code, message}}`.
  if (status === 422 && keys === 'detail' && typeof b.detail === 'object' && b.detail !== null) return 'code' in b.detail && 'message' in b.detail;
  return false;
}
