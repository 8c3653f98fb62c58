/**
 * The checks of an integration pack test that need no connection and do no I/O (SPEC.md
 * "Integration packs": POST /integration-packs/registry/<pack_id>/test, "fixture-driven
 * checks, one row per check"; "validates stored connection fixtures against declared
 * outputs with no I/O, and reports an effectful action with no fixture as skipped; an
 * unproven check is never a pass"). The connection and execution checks are the
 * adapter's (adapters/integration-packs/pack-test-runner.ts).
 *
 * Per action, in this order:
 * - `compiles`: the spec passes the custom action schema and the pack rules for this
 *   action (`packProblems`, which include `specProblems`). When it fails, every other
 *   check of the action is `skipped`: nothing about a spec that cannot be saved is proven.
 * - `fixtures`, one row per fixture: the recorded answer read as a run reads it
 *   (domain/custom-actions/render.ts; an XML `content_type` reads the string body as XML,
 *   and when it stays text the row says why): a verdict of `effect.outcome` that is not
 *   a success (custom-actions/outcome.ts), an HTTP status a run fails on (400 and above)
 *   or a non-zero exit code is a fail; otherwise every declared output must be there
 *   with its type (the outcome's `message` may be missing), and every `expect` value
 *   must equal the extracted one.
 * - `template`, one row per fixture: the fixture's input passes the action's input
 *   schema and every template (path, query, headers, body, idempotency key, ssh args)
 *   renders without a RenderFailure.
 * An action without fixtures gets one `skipped` row for each of the two.
 */
import * as v from 'valibot';
import { outcomeVerdict } from '../custom-actions/outcome.ts';
import {
  customInputSchema,
  parseJsonText,
  RenderFailure,
  readAnswer,
  readJsonPath,
  renderHttp,
  renderSshArgs,
  type Scalar,
  typedOutput,
} from '../custom-actions/render.ts';
import { customActionSpecSchema, storedSpec, type StoredCustomActionSpec } from '../custom-actions/spec.ts';
import { isXmlContentType } from '../custom-actions/xml-answer.ts';
import { type IntegrationPack, type PackFixture, packProblems } from './pack.ts';

export const packTestChecks = ['compiles', 'fixtures', 'template', 'connection', 'execution'] as const;
export const packTestStatuses = ['pass', 'fail', 'skipped'] as const;

/** One row of a pack test: `fixture` names the fixture the row is about, null when it is about the action. */
export const packTestRowSchema = v.strictObject({
  action: v.string(),
  check: v.picklist(packTestChecks),
  fixture: v.nullable(v.string()),
  status: v.picklist(packTestStatuses),
  detail: v.string(),
});

export type PackTestRow = v.InferOutput<typeof packTestRowSchema>;
export type PackTestCheck = PackTestRow['check'];

/** The detail of an effectful action's row where no fixture stands in for a real call. */
export const EFFECTFUL_WITHOUT_FIXTURE = 'effectful action without a fixture: skipped';

/** Whether running the action changes something: a risk other than `read`, or an effect type other than `none` or `enrich`. */
export function isEffectful(spec: Pick<StoredCustomActionSpec, 'risk' | 'effect_type'>): boolean {
  return spec.risk !== 'read' || (spec.effect_type !== 'none' && spec.effect_type !== 'enrich');
}

/** The static rows of one action and whether it compiles (the runner executes only an action that does). */
export type ActionStaticChecks = { spec: StoredCustomActionSpec; compiles: boolean; rows: PackTestRow[] };

/**
 * The `compiles`, `fixtures` and `template` rows of `pack.actions[index]`. `pack` is the
 * document as integrationPackSchema parsed it, whether or not its rules hold, so a pack
 * refused as `pack_invalid` for its rules can still be tested. Throws a RangeError for an
 * index with no action.
 */
export function staticActionChecks(pack: IntegrationPack, index: number): ActionStaticChecks {
  const action = pack.actions[index];
  if (!action) throw new RangeError(`the pack has no action ${index}`);
  const spec = storedSpec(action.spec);
  const row = (check: PackTestCheck, fixture: string | null, status: PackTestRow['status'], detail: string): PackTestRow => ({
    action: spec.name,
    check,
    fixture,
    status,
    detail,
  });

  const problems = compileProblems(pack, index);
  if (problems.length > 0) {
    const notChecked = 'not checked: the action does not compile';
    return {
      spec,
      compiles: false,
      rows: [row('compiles', null, 'fail', problems.join('; ')), row('fixtures', null, 'skipped', notChecked), row('template', null, 'skipped', notChecked)],
    };
  }
  const rows = [row('compiles', null, 'pass', 'the spec passes the custom action schema and the pack rules')];
  if (action.fixtures.length === 0) {
    rows.push(
      row('fixtures', null, 'skipped', isEffectful(spec) ? EFFECTFUL_WITHOUT_FIXTURE : 'no fixture proves the outputs'),
      row('template', null, 'skipped', isEffectful(spec) ? EFFECTFUL_WITHOUT_FIXTURE : 'no fixture gives inputs to render the templates with'),
    );
    return { spec, compiles: true, rows };
  }
  for (const fixture of action.fixtures) {
    const failures = fixtureFailures(spec, fixture);
    rows.push(
      row('fixtures', fixture.name, failures.length === 0 ? 'pass' : 'fail', failures.length === 0 ? fixturePassed(spec, fixture) : failures.join('; ')),
    );
  }
  for (const fixture of action.fixtures) {
    const failure = templateFailure(spec, fixture);
    rows.push(row('template', fixture.name, failure === null ? 'pass' : 'fail', failure ?? 'the input is valid and every template renders'));
  }
  return { spec, compiles: true, rows };
}

/** The schema's and the pack rules' problems of action `index`, as `<loc>: <msg>` relative to the action. */
function compileProblems(pack: IntegrationPack, index: number): string[] {
  const action = pack.actions[index];
  const schema = v.safeParse(customActionSpecSchema, action?.spec);
  const issues = schema.success ? [] : schema.issues.map((i) => `spec.${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);
  const rules = packProblems(pack)
    .filter((p) => p.loc[0] === 'actions' && p.loc[1] === index)
    .map((p) => `${p.loc.slice(2).join('.')}: ${p.msg}`);
  return [...issues, ...rules];
}

/**
 * The recorded answer as a run reads it: the failure a run ends with before reading
 * outputs, or the document the outputs are read from, with the HTTP status (null for ssh).
 */
function readFixture(
  spec: StoredCustomActionSpec,
  fixture: PackFixture,
): { failure: string } | { document: unknown; extra: Record<string, number>; unread: string | null; status: number | null } {
  if (spec.transport === 'http') {
    const response = fixture.response;
    if (!response) return { failure: 'the fixture records no response' };
    if (typeof response.body === 'string' && isXmlContentType(response.content_type)) {
      const answer = readAnswer(response.body, response.content_type ?? null);
      return { document: answer.document, extra: {}, unread: answer.unread, status: response.status };
    }
    return { document: response.body, extra: {}, unread: null, status: response.status };
  }
  const result = fixture.result;
  if (!result) return { failure: 'the fixture records no result' };
  if (result.exit_code !== 0) return { failure: `a run fails on exit code ${result.exit_code} (command_failed): the fixture proves no outputs` };
  const document = spec.outputs.length === 0 ? undefined : parseJsonText(result.stdout);
  return { document, extra: { exit_code: result.exit_code }, unread: null, status: null };
}

function fixtureFailures(spec: StoredCustomActionSpec, fixture: PackFixture): string[] {
  const read = readFixture(spec, fixture);
  if ('failure' in read) return [read.failure];
  const raws = new Map(spec.outputs.map((o) => [o.name, readJsonPath(read.document, o.path, fixture.input)]));
  const extracted: Record<string, Scalar | null> = { ...read.extra };
  for (const output of spec.outputs) extracted[output.name] = typedOutput(raws.get(output.name), output.type);
  const outcome = spec.effect?.outcome;
  const verdict = outcome && read.status !== null ? outcomeVerdict(outcome, read.status, extracted, fixture.input) : null;
  if (verdict && !verdict.ok) return [`a run fails with ${verdict.type} (${verdict.detail}): the fixture proves no outputs`];
  if (read.status !== null && read.status >= 400) return [`a run fails on HTTP ${read.status} (http_status): the fixture proves no outputs`];
  const failures: string[] = [];
  for (const output of spec.outputs) {
    const raw = raws.get(output.name);
    // A vendor sends its message with a refusal, so a success answer need not carry the outcome's message;
    // a fixture expecting an output to be null proves that the answer may lack it (a read finding nothing).
    const absenceExpected = output.name === outcome?.message || fixture.expect[output.name] === null;
    if ((raw === undefined || raw === null) && absenceExpected) continue;
    if (raw === undefined) failures.push(`output ${output.name}: nothing at ${output.path}`);
    else if (extracted[output.name] === null) failures.push(`output ${output.name}: ${jsonType(raw)} at ${output.path} is not ${article(output.type)}`);
  }
  for (const [name, expected] of Object.entries(fixture.expect)) {
    const got = extracted[name] ?? null;
    if (got !== expected) failures.push(`expect ${name}: ${JSON.stringify(expected)} expected, ${JSON.stringify(got)} extracted`);
  }
  return failures.length > 0 && read.unread !== null ? [read.unread, ...failures] : failures;
}

function fixturePassed(spec: StoredCustomActionSpec, fixture: PackFixture): string {
  const outputs = spec.outputs.map((o) => `${o.name} (${o.type})`);
  const expected = Object.keys(fixture.expect).length;
  const read =
    outputs.length === 0
      ? 'the recorded answer succeeds; the action declares no outputs'
      : `every declared output is read with its type: ${outputs.join(', ')}`;
  return expected === 0 ? read : `${read}; ${expected} expected value${expected === 1 ? '' : 's'} match`;
}

/** Why the fixture's input cannot make a request, or null when it can. */
function templateFailure(spec: StoredCustomActionSpec, fixture: PackFixture): string | null {
  const input = v.safeParse(customInputSchema(spec), fixture.input);
  if (!input.success) {
    return `input refused: ${input.issues.map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.') || 'input'}: ${i.message}`).join('; ')}`;
  }
  try {
    if (spec.transport === 'http') renderHttp(spec, input.output, null);
    else renderSshArgs(spec, input.output);
    return null;
  } catch (error) {
    if (error instanceof RenderFailure) return `${error.type}: ${error.message}`;
    throw error;
  }
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const jsonType = (value: unknown): string => (value === null ? 'null' : article(Array.isArray(value) ? 'array' : typeof value));
