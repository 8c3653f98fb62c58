/**
 * The integration pack document (SPEC.md "Integration pack"; the field names are ours,
 * restated in docs/integration-packs.md): one YAML document of `custom.*` actions with
 * metadata, a semantic version, compatibility requirements, the connection kinds its
 * actions need (kinds only, never connection rows), each action's spec (inputs and
 * outputs as its schemas, effect type, risk and target as its effect contract,
 * compensation, redaction), fixtures, and a trailing integrity block.
 *
 * `packProblems` holds the rules the schema cannot say field by field; each problem is a
 * validation issue `{loc, msg, type}` relative to the document.
 */
import semver from 'semver';
import * as v from 'valibot';
import { customActionSpecSchema } from '../custom-actions/spec.ts';
import { specProblems, type SpecProblem } from '../custom-actions/templates.ts';
import { isXmlContentType } from '../custom-actions/xml-answer.ts';

/** A pack's name, which is also its registry id: `edge_waf`, `ip_reputation`. */
export const PACK_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const FIXTURE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** A semantic version as semver writes it (`1.2.0`, `2.0.0-rc.1`; no leading `v`). */
export const semanticVersion = v.pipe(
  v.string(),
  v.check((s) => semver.valid(s) === s, 'a semantic version such as 1.2.0'),
);
const versionRange = v.pipe(
  v.string(),
  v.maxLength(200),
  v.check((s) => semver.validRange(s) !== null, 'a semver range such as >=0.1.0 <1'),
);

const scalar = v.union([v.string(), v.number(), v.boolean(), v.null()]);

/**
 * A recorded HTTP answer: its status, its body, and optionally its `content_type`. Without
 * one, or with a type that is not XML, `body` is the JSON document itself, as YAML writes
 * it; with an XML type (`application/xml`, `text/xml`, `+xml`) `body` is the XML text,
 * read as a run reads it (custom-actions/xml-answer.ts).
 */
const fixtureResponseSchema = v.pipe(
  v.strictObject({
    status: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)), 200),
    content_type: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    body: v.unknown(),
  }),
  v.check((r) => !isXmlContentType(r.content_type) || typeof r.body === 'string', 'an XML answer records its body as the XML text, a string'),
);

/**
 * A recorded vendor answer with the input that produced it: `response` (HTTP status,
 * body and optional content type) for an http action, `result` (exit code and stdout)
 * for an ssh one; `expect` holds output values the extraction must yield (null: the
 * answer may lack the output, as a read that finds nothing does).
 */
export const packFixtureSchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(FIXTURE_NAME, 'lower-case letters, digits and _, starting with a letter')),
  input: v.optional(v.record(v.string(), scalar), {}),
  response: v.optional(fixtureResponseSchema),
  result: v.optional(v.strictObject({ exit_code: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)), stdout: v.optional(v.string(), '') })),
  expect: v.optional(v.record(v.string(), scalar), {}),
});

export const packActionSchema = v.strictObject({
  spec: customActionSpecSchema,
  fixtures: v.optional(v.pipe(v.array(packFixtureSchema), v.maxLength(20)), []),
});

export const integrityBlockSchema = v.strictObject({
  algorithm: v.literal('sha256'),
  digest: v.pipe(v.string(), v.regex(SHA256_HEX, '64 lower-case hex digits')),
});

export const integrationPackSchema = v.strictObject({
  format: v.literal('integration-pack'),
  format_version: v.literal(1),
  name: v.pipe(v.string(), v.regex(PACK_NAME, 'lower-case letters, digits and _, starting with a letter')),
  version: semanticVersion,
  title: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000)), ''),
  publisher: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  /** `service`: the service versions the pack runs on, as a semver range; absent means any. */
  requires: v.optional(v.strictObject({ service: v.optional(versionRange, '*') }), { service: '*' }),
  connection_kinds: v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(50))), v.minLength(1), v.maxLength(10)),
  actions: v.pipe(v.array(packActionSchema), v.minLength(1), v.maxLength(100)),
  integrity: integrityBlockSchema,
});

export type IntegrationPack = v.InferOutput<typeof integrationPackSchema>;
export type PackAction = v.InferOutput<typeof packActionSchema>;
export type PackFixture = v.InferOutput<typeof packFixtureSchema>;

/**
 * The rules beyond the schema: each action name is declared once; its transport is one
 * of `connection_kinds`; it names no default connection (a pack carries kinds only); its
 * spec keeps the custom action template rules (`specProblems`); a fixture matches the
 * transport (`response` for http, `result` for ssh) and its input and `expect` name
 * declared inputs and outputs; an `effect.ownership.read` names a read action (risk
 * `read`) of the same pack. Types: `duplicate_name`, `transport_kind_undeclared`,
 * `default_connection_refused`, `fixture_transport`, `fixture_unknown_input`,
 * `fixture_unknown_output`, `ownership_read_unknown`, and those of `specProblems`.
 */
export function packProblems(pack: IntegrationPack): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  pack.actions.forEach((action, i) => {
    const loc = ['actions', i];
    const { spec } = action;
    if (seen.has(spec.name)) problems.push({ loc: [...loc, 'spec', 'name'], msg: `${spec.name} is declared twice`, type: 'duplicate_name' });
    seen.add(spec.name);
    if (!pack.connection_kinds.includes(spec.transport)) {
      problems.push({ loc: [...loc, 'spec', 'transport'], msg: `transport ${spec.transport} is not in connection_kinds`, type: 'transport_kind_undeclared' });
    }
    if (spec.default_connection !== null) {
      problems.push({
        loc: [...loc, 'spec', 'default_connection'],
        msg: 'a pack names connection kinds only, never a connection',
        type: 'default_connection_refused',
      });
    }
    for (const p of specProblems(spec)) problems.push({ ...p, loc: [...loc, 'spec', ...p.loc] });
    problems.push(...fixtureProblems(action, loc));
  });
  const reads = new Set(pack.actions.filter((a) => a.spec.risk === 'read').map((a) => a.spec.name));
  pack.actions.forEach((action, i) => {
    const read = action.spec.effect?.ownership?.read;
    if (read !== undefined && read !== action.spec.name && !reads.has(read)) {
      problems.push({
        loc: ['actions', i, 'spec', 'effect', 'ownership', 'read'],
        msg: `${read} is not a read action (risk read) of this pack`,
        type: 'ownership_read_unknown',
      });
    }
  });
  return problems;
}

function fixtureProblems(action: PackAction, loc: (string | number)[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const inputs = new Set(action.spec.inputs.map((i) => i.name));
  const outputs = new Set([...action.spec.outputs.map((o) => o.name), ...(action.spec.transport === 'ssh' ? ['exit_code'] : [])]);
  action.fixtures.forEach((f, j) => {
    const at = [...loc, 'fixtures', j];
    const wanted = action.spec.transport === 'http' ? 'response' : 'result';
    if (f[wanted] === undefined || f[wanted === 'response' ? 'result' : 'response'] !== undefined) {
      problems.push({ loc: at, msg: `a fixture of an ${action.spec.transport} action records a \`${wanted}\` only`, type: 'fixture_transport' });
    }
    for (const name of Object.keys(f.input)) {
      if (!inputs.has(name)) problems.push({ loc: [...at, 'input', name], msg: `${name} is not a declared input`, type: 'fixture_unknown_input' });
    }
    for (const name of Object.keys(f.expect)) {
      if (!outputs.has(name)) problems.push({ loc: [...at, 'expect', name], msg: `${name} is not a declared output`, type: 'fixture_unknown_output' });
    }
  });
  return problems;
}

export const isSha256Hex = (s: string): boolean => SHA256_HEX.test(s);
