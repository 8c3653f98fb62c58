/**
 * The pack test's checks that need no connection (domain/integration-packs/pack-test.ts;
 * SPEC.md "Integration packs"): `compiles`, `fixtures` read as a run reads the answer,
 * `template` rendered as a run renders it; each passes only when it proved something, an
 * action without fixtures is skipped (an effectful one says so), and a spec that does not
 * compile gets nothing but its failure.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  EFFECTFUL_WITHOUT_FIXTURE,
  isEffectful,
  type PackTestRow,
  packTestRowSchema,
  staticActionChecks,
} from '../../../domain/integration-packs/pack-test.ts';
import { parsedPack } from '../../support/pack-documents.ts';

const lookup = {
  name: 'custom.intel.lookup',
  title: 'Host lookup',
  transport: 'http',
  inputs: [
    { name: 'ip', type: 'string', required: true },
    { name: 'note', type: 'string' },
  ],
  http: { method: 'GET', path: '/hosts/{{ inputs.ip }}', headers: { 'X-Note': '{{ inputs.note }}' }, query: { q: '{{ inputs.note }}' } },
  outputs: [
    { name: 'org', path: '$.data.org', type: 'string' },
    { name: 'score', path: '$.score', type: 'number' },
    { name: 'seen', path: '$.items[0].seen', type: 'boolean' },
  ],
  effect_type: 'enrich',
  risk: 'read',
};
const okBody = { data: { org: 'ACME' }, score: 4.5, items: [{ seen: true }] };

const shell = {
  name: 'custom.intel.shell',
  title: 'Remote check',
  transport: 'ssh',
  inputs: [{ name: 'host', type: 'string', required: true }],
  ssh: { command: '/usr/bin/check', args: ['--host', '{{ inputs.host }}'] },
  outputs: [{ name: 'state', path: '$.state', type: 'string' }],
  effect_type: 'none',
  risk: 'read',
};

const block = {
  name: 'custom.intel.block',
  title: 'Block an address',
  transport: 'http',
  inputs: [{ name: 'ip', type: 'string', required: true }],
  http: { method: 'POST', path: '/blocks', body: { ip: '{{ inputs.ip }}' } },
  outputs: [{ name: 'id', path: '$.id', type: 'string' }],
  effect_type: 'block',
  risk: 'write',
  target: { type: 'ip', input: 'ip' },
};

const packOf = (actions: { spec: Record<string, unknown>; fixtures?: unknown[] }[]) => parsedPack(actions);

/** The rows of the pack's only action, each row checked against the published schema. */
const rowsOf = (spec: Record<string, unknown>, fixtures?: unknown[]): PackTestRow[] => {
  const { rows } = staticActionChecks(packOf([{ spec, ...(fixtures && { fixtures }) }]), 0);
  for (const row of rows) expect(v.safeParse(packTestRowSchema, row).success).toBe(true);
  return rows;
};
const pick = (rows: PackTestRow[], check: string, fixture: string | null = null) => rows.find((r) => r.check === check && r.fixture === fixture);

describe('pack test static checks', () => {
  it('passes compiles, fixtures and template for a fixture that proves every output and renders', () => {
    const rows = rowsOf(lookup, [
      { name: 'found', input: { ip: '10.0.0.1', note: 'n' }, response: { status: 200, body: okBody }, expect: { org: 'ACME', score: 4.5 } },
    ]);
    expect(rows.map((r) => [r.check, r.fixture, r.status])).toEqual([
      ['compiles', null, 'pass'],
      ['fixtures', 'found', 'pass'],
      ['template', 'found', 'pass'],
    ]);
    expect(pick(rows, 'fixtures', 'found')?.detail).toBe(
      'every declared output is read with its type: org (string), score (number), seen (boolean); 2 expected values match',
    );
  });

  it('fails a fixture for a missing output, a wrong-typed one and an expect value the extraction does not yield, naming each', () => {
    const rows = rowsOf(lookup, [
      { name: 'thin', input: { ip: '10.0.0.1' }, response: { status: 200, body: { data: { org: 7 }, score: 'high', items: [] } }, expect: { org: 'ACME' } },
    ]);
    const row = pick(rows, 'fixtures', 'thin');
    expect(row?.status).toBe('fail');
    // A number read as a string output is its text, as a run reads it: org is there, only not the expected value.
    expect(row?.detail).toBe(
      'output score: a string at $.score is not a number; output seen: nothing at $.items[0].seen; expect org: "ACME" expected, "7" extracted',
    );
    // Rendering is another check: it still passes.
    expect(pick(rows, 'template', 'thin')?.status).toBe('pass');
  });

  it('fails a fixture whose HTTP status a run fails on, whatever its body', () => {
    for (const status of [404, 429, 500]) {
      const rows = rowsOf(lookup, [{ name: 'refused', input: { ip: '10.0.0.1' }, response: { status, body: okBody } }]);
      expect(pick(rows, 'fixtures', 'refused')).toMatchObject({
        status: 'fail',
        detail: `a run fails on HTTP ${status} (http_status): the fixture proves no outputs`,
      });
    }
    // A redirect is the answer a run reads (it never follows one), so its body is what counts.
    const redirect = rowsOf(lookup, [{ name: 'moved', input: { ip: '10.0.0.1' }, response: { status: 302, body: {} } }]);
    expect(pick(redirect, 'fixtures', 'moved')?.status).toBe('fail');
  });

  it('reads a string body with an XML content type as XML, as a run reads an XML answer, and says why one stays text', () => {
    const xmlLookup = {
      ...lookup,
      outputs: [
        { name: 'org', path: '$.host.@org', type: 'string' },
        { name: 'first', path: '$.host.port[0]', type: 'string' },
      ],
    };
    const xml = '<?xml version="1.0"?><host org="ACME"><port>22</port><port>443</port></host>';
    const rows = rowsOf(xmlLookup, [
      {
        name: 'xml',
        input: { ip: '10.0.0.1' },
        response: { status: 200, content_type: 'text/xml; charset=utf-8', body: xml },
        expect: { org: 'ACME', first: '22' },
      },
      { name: 'dtd', input: { ip: '10.0.0.1' }, response: { content_type: 'application/xml', body: `<!DOCTYPE host>${xml.slice(21)}` } },
      // Without an XML content type a string body is a JSON document that is a string: nothing at the paths.
      { name: 'untyped', input: { ip: '10.0.0.1' }, response: { body: xml } },
    ]);
    expect(pick(rows, 'fixtures', 'xml')?.status).toBe('pass');
    expect(pick(rows, 'fixtures', 'dtd')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^the XML answer stays text \(dtd: .*; output org: nothing at \$\.host\.@org/),
    });
    expect(pick(rows, 'fixtures', 'untyped')).toMatchObject({
      status: 'fail',
      detail: 'output org: nothing at $.host.@org; output first: nothing at $.host.port[0]',
    });

    // A JSON fixture may name its content type; its body stays the document.
    const json = rowsOf(lookup, [{ name: 'typed', input: { ip: '10.0.0.1' }, response: { content_type: 'application/json', body: okBody } }]);
    expect(pick(json, 'fixtures', 'typed')?.status).toBe('pass');
    // An XML answer is recorded as its text.
    expect(() => packOf([{ spec: xmlLookup, fixtures: [{ name: 'obj', response: { content_type: 'application/xml', body: { host: {} } } }] }])).toThrow(
      /an XML answer records its body as the XML text/,
    );
  });

  it('judges a fixture by the action effect.outcome as a run does: only a success verdict proves outputs', () => {
    const judged = {
      ...block,
      outputs: [
        { name: 'id', path: '$.result.id', type: 'string' },
        { name: 'ok', path: '$.success', type: 'string' },
        { name: 'message', path: '$.errors[0].message', type: 'string' },
      ],
      effect: { outcome: { output: 'ok', success: ['true'], message: 'message', already_present: ['duplicate_of_existing'] } },
    };
    const duplicate = { result: null, success: false, errors: [{ code: 10009, message: 'firewallaccessrules.api.duplicate_of_existing' }] };
    const rows = rowsOf(judged, [
      { name: 'created', input: { ip: '10.0.0.1' }, response: { body: { result: { id: 'r1' }, success: true, errors: [] } }, expect: { id: 'r1' } },
      { name: 'refused', input: { ip: '10.0.0.1' }, response: { body: { result: null, success: false, errors: [{ message: 'invalid ip' }] } } },
      { name: 'duplicate', input: { ip: '10.0.0.1' }, response: { status: 400, body: duplicate } },
      { name: 'forbidden', input: { ip: '10.0.0.1' }, response: { status: 403, body: { success: false, errors: [{ message: 'no' }] } } },
      { name: 'thin', input: { ip: '10.0.0.1' }, response: { body: { success: true } } },
    ]);
    // A success answer carries no message: the outcome's message output may be missing, no other.
    expect(pick(rows, 'fixtures', 'created')?.status).toBe('pass');
    expect(pick(rows, 'fixtures', 'refused')).toMatchObject({
      status: 'fail',
      detail: 'a run fails with vendor_refused (invalid ip): the fixture proves no outputs',
    });
    expect(pick(rows, 'fixtures', 'duplicate')).toMatchObject({
      status: 'fail',
      detail: 'a run fails with vendor_already_present (firewallaccessrules.api.duplicate_of_existing): the fixture proves no outputs',
    });
    expect(pick(rows, 'fixtures', 'forbidden')).toMatchObject({
      status: 'fail',
      detail: 'a run fails on HTTP 403 (http_status): the fixture proves no outputs',
    });
    expect(pick(rows, 'fixtures', 'thin')).toMatchObject({ status: 'fail', detail: 'output id: nothing at $.result.id' });
  });

  it('reads an ssh result as a run does: stdout as JSON plus exit_code, a non-zero exit failing', () => {
    const rows = rowsOf(shell, [
      { name: 'up', input: { host: 'db1' }, result: { exit_code: 0, stdout: '{"state":"up"}' }, expect: { state: 'up', exit_code: 0 } },
      { name: 'down', input: { host: 'db1' }, result: { exit_code: 3, stdout: '{"state":"down"}' } },
      { name: 'garbled', input: { host: 'db1' }, result: { exit_code: 0, stdout: 'state=up' } },
      { name: 'unknown', input: { host: 'db9' }, result: { exit_code: 0, stdout: 'null' }, expect: { state: null } },
      { name: 'nulled', input: { host: 'db9' }, result: { exit_code: 0, stdout: '{"state":null}' }, expect: { state: null } },
    ]);
    expect(pick(rows, 'fixtures', 'up')?.status).toBe('pass');
    expect(pick(rows, 'fixtures', 'down')).toMatchObject({
      status: 'fail',
      detail: 'a run fails on exit code 3 (command_failed): the fixture proves no outputs',
    });
    expect(pick(rows, 'fixtures', 'garbled')).toMatchObject({ status: 'fail', detail: 'output state: nothing at $.state' });
    // A fixture expecting null proves the answer may lack the output: a read that finds nothing.
    expect(pick(rows, 'fixtures', 'unknown')?.status).toBe('pass');
    expect(pick(rows, 'fixtures', 'nulled')?.status).toBe('pass');
    expect(rows.filter((r) => r.check === 'template').map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
  });

  it('fails the template check for an input the schema refuses and for inputs that cannot make a request', () => {
    const rows = rowsOf({ ...lookup, idempotency_key: 'k-{{ inputs.note }}' }, [
      { name: 'typed', input: { ip: 5 }, response: { status: 200, body: okBody } },
      { name: 'missing', input: { note: 'n' }, response: { status: 200, body: okBody } },
      { name: 'empty', input: { ip: '' }, response: { status: 200, body: okBody } },
      { name: 'crlf', input: { ip: 'h', note: 'a\r\nX-Evil: 1' }, response: { status: 200, body: okBody } },
    ]);
    expect(pick(rows, 'template', 'typed')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^input refused: ip: /) });
    expect(pick(rows, 'template', 'missing')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^input refused: ip: /) });
    expect(pick(rows, 'template', 'empty')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^path_segment_empty: /) });
    expect(pick(rows, 'template', 'crlf')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^header_invalid: .*X-Note/) });
  });

  it('fails compiles for a spec that breaks a template rule or a pack rule, and checks nothing else of it', () => {
    const secret = rowsOf({ ...lookup, http: { ...lookup.http, headers: { 'X-Key': '{{ secrets.key }}' } } }, [
      { name: 'found', input: { ip: '10.0.0.1' }, response: { status: 200, body: okBody } },
    ]);
    expect(secret.map((r) => [r.check, r.fixture, r.status])).toEqual([
      ['compiles', null, 'fail'],
      ['fixtures', null, 'skipped'],
      ['template', null, 'skipped'],
    ]);
    expect(pick(secret, 'compiles')?.detail).toContain('spec.http.headers.X-Key: a template reads declared inputs only');
    expect(pick(secret, 'fixtures')?.detail).toBe('not checked: the action does not compile');

    const transport = rowsOf(lookup, [{ name: 'wrong', input: { ip: 'h' }, result: { exit_code: 0, stdout: '{}' } }]);
    expect(pick(transport, 'compiles')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('fixtures.0: a fixture of an http action records a `response` only'),
    });

    const connection = rowsOf({ ...lookup, default_connection: 'intel' });
    expect(pick(connection, 'compiles')).toMatchObject({ status: 'fail', detail: expect.stringContaining('spec.default_connection:') });
  });

  it('skips an action without fixtures, and says so explicitly for an effectful one: never a pass', () => {
    const read = rowsOf(lookup);
    expect(read.map((r) => [r.check, r.fixture, r.status, r.detail])).toEqual([
      ['compiles', null, 'pass', 'the spec passes the custom action schema and the pack rules'],
      ['fixtures', null, 'skipped', 'no fixture proves the outputs'],
      ['template', null, 'skipped', 'no fixture gives inputs to render the templates with'],
    ]);
    const effectful = rowsOf(block);
    expect(effectful.filter((r) => r.check !== 'compiles').map((r) => [r.status, r.detail])).toEqual([
      ['skipped', EFFECTFUL_WITHOUT_FIXTURE],
      ['skipped', EFFECTFUL_WITHOUT_FIXTURE],
    ]);
  });

  it('checks each action of a pack on its own, by index', () => {
    const pack = packOf([{ spec: lookup }, { spec: { ...block, name: 'custom.intel.lookup' } }]);
    expect(staticActionChecks(pack, 0).compiles).toBe(true);
    const second = staticActionChecks(pack, 1);
    expect(second.compiles).toBe(false);
    expect(second.rows[0]).toEqual({
      action: 'custom.intel.lookup',
      check: 'compiles',
      fixture: null,
      status: 'fail',
      detail: 'spec.name: custom.intel.lookup is declared twice',
    });
    expect(() => staticActionChecks(pack, 2)).toThrow(RangeError);
  });

  it('calls an action effectful unless it is a read that changes nothing or only enriches', () => {
    expect(isEffectful({ risk: 'read', effect_type: 'none' })).toBe(false);
    expect(isEffectful({ risk: 'read', effect_type: 'enrich' })).toBe(false);
    expect(isEffectful({ risk: 'read', effect_type: 'notify' })).toBe(true);
    expect(isEffectful({ risk: 'write', effect_type: 'enrich' })).toBe(true);
    expect(isEffectful({ risk: 'arbitrary', effect_type: 'none' })).toBe(true);
  });
});
