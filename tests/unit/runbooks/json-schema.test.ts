/**
 * The published runbook JSON Schema (docs/configuration.md "Runbook editor support"): the
 * committed copy is the generated one, a standard validator (ajv) accepts the shipped runbooks
 * and every field of the DSL, and it flags what an author gets wrong in a field (a typo in a
 * name, a wrong type, a value out of bounds) exactly where the parser does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runbookJsonSchemaText } from '../../../adapters/runbooks/json-schema.ts';
import { parseRunbook, type RunbookCatalog } from '../../../domain/runbooks/parse.ts';
import { EVERY_FIELD_RUNBOOK } from '../../support/runbook-documents.ts';

const repo = join(import.meta.dirname, '../../..');
const published = readFileSync(join(repo, 'docs/runbook.schema.json'), 'utf8');
const validate = new Ajv({ allErrors: true }).compile(JSON.parse(published));

/** Accepts every action, template and condition: only the document's shape is under test. */
const lenient: RunbookCatalog = { actionProblem: () => null, checkInput: () => [], checkTemplate: () => null, checkCondition: () => null };

const schedule = (trigger: string) => `id: nightly\nname: Nightly\ntrigger: ${trigger}\nsteps: [{ id: a, action: case.tag }]\n`;

describe('the published runbook JSON Schema', () => {
  it('is the one generated from the parser’s schemas (make runbook-schema rewrites it)', () => {
    expect(published).toBe(runbookJsonSchemaText());
  });

  const shipped = readdirSync(join(repo, 'runbooks')).filter((f) => /\.ya?ml$/.test(f));
  it.each(shipped)('accepts the shipped runbook %s, which names it in its modeline', (file) => {
    const text = readFileSync(join(repo, 'runbooks', file), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../docs/runbook.schema.json');
    expect(validate(parseYaml(text)) ? [] : validate.errors).toEqual([]);
  });

  it.each([
    ['every field of the DSL', EVERY_FIELD_RUNBOOK],
    ['a cron schedule', schedule("{ type: schedule, cron: '*/5 * * * *' }")],
    ['an interval schedule', schedule('{ type: schedule, interval_s: 60 }')],
    ['a manual trigger', schedule('{ type: manual }')],
  ])('accepts %s, as the parser does', (_, text) => {
    expect(parseRunbook(text, lenient).ok).toBe(true);
    expect(validate(parseYaml(text)) ? [] : validate.errors).toEqual([]);
  });

  const base = parseYaml(EVERY_FIELD_RUNBOOK) as Record<string, unknown>;
  /** `EVERY_FIELD_RUNBOOK` with `edit` applied to a deep copy. */
  const broken = (edit: (doc: any) => void): Record<string, unknown> => {
    const doc = structuredClone(base);
    edit(doc);
    return doc;
  };

  it.each([
    ['a misspelt runbook field', broken((d) => (d.descripton = 'typo')), ['descripton'], "unknown field 'descripton'"],
    ['a misspelt step field', broken((d) => (d.steps[1].retry = 2)), ['steps', 1, 'retry'], "unknown field 'retry'"],
    ['a misspelt branch step field', broken((d) => (d.steps[0].need = [])), ['steps', 0, 'need'], "unknown field 'need'"],
    ['a misspelt trigger field', broken((d) => (d.trigger.condition = {})), ['trigger', 'condition'], "unknown field 'condition'"],
    ['a misspelt approval field', broken((d) => (d.steps[2].approval.role = ['admin'])), ['steps', 2, 'approval', 'role'], "unknown field 'role'"],
    ['a misspelt input field', broken((d) => (d.inputs[0].requird = true)), ['inputs', 0, 'requird'], "unknown field 'requird'"],
    ['a missing step action', broken((d) => delete d.steps[1].action), ['steps', 1, 'action'], 'field required'],
    ['a timeout out of bounds', broken((d) => (d.steps[1].timeout_s = 0)), ['steps', 1, 'timeout_s'], 'must be an integer from 1 to 86400'],
    ['retries as text', broken((d) => (d.steps[1].retries = 'three')), ['steps', 1, 'retries'], 'must be an integer from 0 to 10'],
    ['an unknown trigger type', broken((d) => (d.trigger = { type: 'webhook' })), ['trigger', 'type'], 'must be one of alert, manual, schedule'],
    ['an unknown input type', broken((d) => (d.inputs[1].type = 'text')), ['inputs', 1, 'type'], 'must be one of string, number, boolean, list, object'],
    [
      'an unknown gate role',
      broken((d) => (d.steps[2].approval.roles = ['owner'])),
      ['steps', 2, 'approval', 'roles', 0],
      'must be one of viewer, analyst, approver, admin',
    ],
    ['an empty condition list', broken((d) => (d.trigger.conditions.severity = [])), ['trigger', 'conditions', 'severity'], 'must not be an empty list'],
    ['a bad step id', broken((d) => (d.steps[1].id = 'has space')), ['steps', 1, 'id'], 'must match ^[A-Za-z0-9_-]{1,64}$'],
    ['a blank name', broken((d) => (d.name = ' ')), ['name'], 'must not be empty'],
    ['an unknown on_error', broken((d) => (d.steps[1].on_error = 'retry')), ['steps', 1, 'on_error'], 'must be fail, continue or goto:<step_id>'],
  ])('flags %s, where the parser does', (_, doc, loc, msg) => {
    expect(validate(doc)).toBe(false);
    const parsed = parseRunbook(JSON.stringify(doc), lenient);
    expect(parsed.ok ? [] : parsed.errors).toContainEqual({ loc, msg });
  });
});
