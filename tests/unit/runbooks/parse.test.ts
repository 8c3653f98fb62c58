import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RunbookDefinition } from '../../../domain/runbooks/model.ts';
import { parseRunbook, type RunbookCatalog } from '../../../domain/runbooks/parse.ts';
import { EVERY_FIELD_RUNBOOK } from '../../support/runbook-documents.ts';

const catalog: RunbookCatalog = {
  actionProblem: (name) => (['case.comment', 'case.tag', 'http.request', 'notify.email'].includes(name) ? null : `unknown action '${name}'`),
  checkInput: () => [],
  checkTemplate: (text) => (text.includes('{{ broken') ? 'broken template' : null),
  checkCondition: (expr) => (/==\s*\S/.test(expr) ? null : 'broken condition'),
};

type Doc = Record<string, unknown>;

const comment = { id: 'comment', action: 'case.comment', with: { body: 'hello' } };

/** A minimal valid runbook; an `undefined` override removes that field. */
function runbookDoc(overrides: Doc = {}): Doc {
  const doc: Doc = { id: 'phishing-triage', name: 'Phishing triage', trigger: { type: 'manual' }, steps: [comment], ...overrides };
  return Object.fromEntries(Object.entries(doc).filter(([, value]) => value !== undefined));
}

function parse(doc: Doc | string) {
  return parseRunbook(typeof doc === 'string' ? doc : stringify(doc), catalog);
}

function errorsOf(doc: Doc | string) {
  const result = parse(doc);
  if (result.ok) throw new Error('expected the runbook to be refused');
  return result.errors;
}

function runbookOf(doc: Doc | string): RunbookDefinition {
  const result = parse(doc);
  if (!result.ok) throw new Error(`expected a valid runbook, got ${JSON.stringify(result.errors)}`);
  return result.runbook;
}

/** The error locs of a runbook with these steps. */
function stepErrors(...steps: Doc[]) {
  return errorsOf(runbookDoc({ steps }));
}

describe('parseRunbook: a valid runbook', () => {
  it('reads every field of the DSL', () => {
    expect(runbookOf(EVERY_FIELD_RUNBOOK)).toEqual({
      id: 'phishing-triage',
      name: 'Phishing triage',
      description: 'Contain a reported phish',
      version: 3,
      enabled: false,
      trigger: { type: 'alert', conditions: { severity: ['High', 'critical'], 'matched_log.host.name': 'mail-01', score: 7 } },
      inputs: [
        { name: 'mailbox', type: 'string', required: true, description: 'Target mailbox' },
        { name: 'dry', type: 'boolean', required: false, description: '' },
        { name: 'note', type: 'string', required: false, description: '' },
      ],
      steps: [
        {
          id: 'is-internal',
          kind: 'branch',
          action: null,
          when: '{{ trigger.sender_domain == "example.com" }}',
          needs: [],
          when_branch: null,
          with: {},
          timeout_s: 120,
          retries: 0,
          on_error: { kind: 'fail' },
          approval: null,
          autonomous: false,
          for_each: null,
          ui: { x: 0, y: 0 },
        },
        {
          id: 'tag',
          kind: 'action',
          action: 'case.tag',
          when: null,
          needs: ['is-internal'],
          when_branch: 'true',
          with: { tags: ['phish', '{{ trigger.rule.id }}'], meta: { by: '{{ inputs.mailbox }}' } },
          timeout_s: 30,
          retries: 2,
          on_error: { kind: 'continue' },
          approval: null,
          autonomous: true,
          for_each: null,
          ui: { x: 10, y: 20.5 },
        },
        {
          id: 'notify',
          kind: 'action',
          action: 'notify.email',
          when: null,
          needs: ['is-internal', 'tag'],
          when_branch: 'false',
          with: { to: '{{ item }}' },
          timeout_s: 120,
          retries: 0,
          on_error: { kind: 'goto', target: 'tag' },
          approval: { roles: ['approver', 'admin'], timeout_h: 1.5, message: 'Mail the recipients?' },
          autonomous: false,
          for_each: '{{ trigger.recipients }}',
          ui: null,
        },
      ],
    });
  });

  it('applies the defaults of every optional field', () => {
    expect(runbookOf(runbookDoc())).toEqual({
      id: 'phishing-triage',
      name: 'Phishing triage',
      description: '',
      version: 1,
      enabled: true,
      trigger: { type: 'manual' },
      inputs: [],
      steps: [
        {
          id: 'comment',
          kind: 'action',
          action: 'case.comment',
          when: null,
          needs: [],
          when_branch: null,
          with: { body: 'hello' },
          timeout_s: 120,
          retries: 0,
          on_error: { kind: 'fail' },
          approval: null,
          autonomous: false,
          for_each: null,
          ui: null,
        },
      ],
    });
  });

  it('reads schedule triggers with either cron or interval_s, and alert triggers without conditions', () => {
    expect(runbookOf(runbookDoc({ trigger: { type: 'schedule', cron: '*/5 * * * *' } })).trigger).toEqual({
      type: 'schedule',
      cron: '*/5 * * * *',
      interval_s: null,
    });
    expect(runbookOf(runbookDoc({ trigger: { type: 'schedule', interval_s: 300 } })).trigger).toEqual({ type: 'schedule', cron: null, interval_s: 300 });
    expect(runbookOf(runbookDoc({ trigger: { type: 'alert' } })).trigger).toEqual({ type: 'alert', conditions: {} });
  });

  it('treats an explicit YAML null as an absent optional field', () => {
    const runbook = runbookOf('id: abc\nname: x\ndescription:\ntrigger: {type: manual}\nsteps:\n  - {id: a, action: case.tag, retries: ~}\n');
    expect(runbook.description).toBe('');
    expect(runbook.steps[0]?.retries).toBe(0);
  });

  it('accepts a backward goto to a step it needs: goto edges are not part of the DAG', () => {
    const steps = [
      { id: 'a', action: 'case.tag' },
      { id: 'b', action: 'case.tag', needs: ['a'], on_error: 'goto:a' },
    ];
    expect(runbookOf(runbookDoc({ steps })).steps[1]?.on_error).toEqual({ kind: 'goto', target: 'a' });
  });
});

describe('parseRunbook: the document', () => {
  it('reports a YAML syntax error as one error naming the line', () => {
    const errors = errorsOf('id: abc\nname: [unclosed\nsteps: []\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.loc).toEqual([]);
    expect(errors[0]?.msg).toMatch(/^invalid YAML: .*line \d+/);
  });

  it('refuses duplicate keys and unresolved aliases as YAML errors', () => {
    expect(errorsOf('id: abc\nid: abd\n')).toEqual([{ loc: [], msg: expect.stringMatching(/unique/) }]);
    expect(errorsOf('id: *nowhere\n')).toEqual([{ loc: [], msg: expect.stringMatching(/alias/i) }]);
  });

  it('refuses a document that is not a mapping', () => {
    for (const text of ['', '- a\n- b\n', 'just text']) {
      expect(errorsOf(text)).toEqual([{ loc: [], msg: 'a runbook must be a YAML mapping' }]);
    }
  });

  it('refuses each unknown field at every level on its own', () => {
    const doc = runbookDoc({
      colour: 'red',
      owner: 'me',
      trigger: { type: 'manual', cron: '* * * * *' },
      inputs: [{ name: 'a', type: 'string', default: 'x' }],
      steps: [
        comment,
        { id: 'b', action: 'case.tag', ui: { x: 1, y: 2, z: 3 } },
        { id: 'c', action: 'case.tag', colour: 'blue', approval: { roles: ['admin'], quorum: 2 } },
      ],
    });
    expect(errorsOf(doc).map((e) => e.loc)).toEqual([
      ['colour'],
      ['owner'],
      ['trigger', 'cron'],
      ['inputs', 0, 'default'],
      ['steps', 1, 'ui', 'z'],
      ['steps', 2, 'colour'],
      ['steps', 2, 'approval', 'quorum'],
    ]);
    expect(errorsOf(doc)[0]?.msg).toBe("unknown field 'colour'");
  });

  it('collects every error in document order instead of stopping at the first', () => {
    const doc = runbookDoc({
      id: 'X',
      version: 0,
      steps: [
        { id: 'a', action: 'nope.nope', retries: 11 },
        { id: 'b', needs: ['zzz'] },
      ],
    });
    expect(errorsOf(doc)).toEqual([
      { loc: ['id'], msg: 'must match ^[a-z0-9-]{3,64}$' },
      { loc: ['version'], msg: 'must be an integer of at least 1' },
      { loc: ['steps', 0, 'action'], msg: "unknown action 'nope.nope'" },
      { loc: ['steps', 0, 'retries'], msg: 'must be an integer from 0 to 10' },
      { loc: ['steps', 1, 'action'], msg: 'field required' },
      { loc: ['steps', 1, 'needs', 0], msg: "unknown step 'zzz'" },
    ]);
  });
});

describe('parseRunbook: runbook fields', () => {
  it.each([
    ['id missing', { id: undefined }, ['id'], 'field required'],
    ['id too short', { id: 'ab' }, ['id'], 'must match ^[a-z0-9-]{3,64}$'],
    ['id with capitals', { id: 'Phishing' }, ['id'], 'must match ^[a-z0-9-]{3,64}$'],
    ['id too long', { id: 'a'.repeat(65) }, ['id'], 'must match ^[a-z0-9-]{3,64}$'],
    ['id not a string', { id: 123 }, ['id'], 'must be a string'],
    ['name missing', { name: undefined }, ['name'], 'field required'],
    ['name blank', { name: '  ' }, ['name'], 'must not be empty'],
    ['description not a string', { description: ['a'] }, ['description'], 'must be a string'],
    ['version zero', { version: 0 }, ['version'], 'must be an integer of at least 1'],
    ['version fractional', { version: 1.5 }, ['version'], 'must be an integer of at least 1'],
    ['version text', { version: 'two' }, ['version'], 'must be an integer of at least 1'],
    ['enabled not boolean', { enabled: 'yes' }, ['enabled'], 'must be true or false'],
    ['trigger missing', { trigger: undefined }, ['trigger'], 'field required'],
    ['trigger not a mapping', { trigger: 'manual' }, ['trigger'], 'must be a mapping'],
    ['trigger type unknown', { trigger: { type: 'webhook' } }, ['trigger', 'type'], 'must be one of alert, manual, schedule'],
    ['trigger type missing', { trigger: {} }, ['trigger', 'type'], 'field required'],
    ['steps missing', { steps: undefined }, ['steps'], 'field required'],
    ['steps empty', { steps: [] }, ['steps'], 'must have at least one step'],
    ['steps not a list', { steps: { a: 1 } }, ['steps'], 'must be a list'],
    ['step not a mapping', { steps: ['comment'] }, ['steps', 0], 'must be a mapping'],
  ])('refuses %s', (_, overrides, loc, msg) => {
    expect(errorsOf(runbookDoc(overrides))).toEqual([{ loc, msg }]);
  });
});

describe('parseRunbook: triggers', () => {
  const triggerErrors = (trigger: Doc) => errorsOf(runbookDoc({ trigger }));

  it('refuses alert conditions that are not scalars or non-empty lists of scalars', () => {
    expect(triggerErrors({ type: 'alert', conditions: { a: { nested: 1 }, b: [1, { x: 1 }], c: [], d: null, e: true } })).toEqual([
      { loc: ['trigger', 'conditions', 'a'], msg: 'must be a scalar or a list of scalars' },
      { loc: ['trigger', 'conditions', 'b'], msg: 'must be a scalar or a list of scalars' },
      { loc: ['trigger', 'conditions', 'c'], msg: 'must not be an empty list' },
      { loc: ['trigger', 'conditions', 'd'], msg: 'must be a scalar or a list of scalars' },
    ]);
    expect(triggerErrors({ type: 'alert', conditions: ['severity'] })).toEqual([{ loc: ['trigger', 'conditions'], msg: 'must be a mapping' }]);
  });

  it('needs exactly one of cron and interval_s on a schedule', () => {
    const msg = 'a schedule needs exactly one of cron or interval_s';
    expect(triggerErrors({ type: 'schedule' })).toEqual([{ loc: ['trigger'], msg }]);
    expect(triggerErrors({ type: 'schedule', cron: '0 * * * *', interval_s: 60 })).toEqual([{ loc: ['trigger'], msg }]);
  });

  it('refuses an invalid cron expression and an interval below one second', () => {
    expect(triggerErrors({ type: 'schedule', cron: '61 * * * *' })).toEqual([
      { loc: ['trigger', 'cron'], msg: 'invalid cron expression: Invalid value for minute: 61' },
    ]);
    expect(triggerErrors({ type: 'schedule', cron: 'every day' })[0]?.loc).toEqual(['trigger', 'cron']);
    expect(triggerErrors({ type: 'schedule', interval_s: 0 })).toEqual([{ loc: ['trigger', 'interval_s'], msg: 'must be an integer of at least 1' }]);
    expect(triggerErrors({ type: 'schedule', interval_s: 2.5 })[0]?.loc).toEqual(['trigger', 'interval_s']);
  });

  it('refuses the fields of other trigger types', () => {
    expect(triggerErrors({ type: 'alert', interval_s: 5 })).toEqual([{ loc: ['trigger', 'interval_s'], msg: "unknown field 'interval_s'" }]);
    expect(triggerErrors({ type: 'schedule', interval_s: 5, conditions: {} })).toEqual([{ loc: ['trigger', 'conditions'], msg: "unknown field 'conditions'" }]);
  });
});

describe('parseRunbook: inputs', () => {
  it('refuses bad input items, each at its loc', () => {
    const inputs = [{ name: 'mailbox', type: 'string' }, { name: 'mailbox', type: 'number' }, { type: 'date', required: 'yes', description: 5 }, 'mailbox'];
    expect(errorsOf(runbookDoc({ inputs }))).toEqual([
      { loc: ['inputs', 1, 'name'], msg: "duplicate input name 'mailbox'" },
      { loc: ['inputs', 2, 'name'], msg: 'field required' },
      { loc: ['inputs', 2, 'type'], msg: 'must be one of string, number, boolean, list, object' },
      { loc: ['inputs', 2, 'required'], msg: 'must be true or false' },
      { loc: ['inputs', 2, 'description'], msg: 'must be a string' },
      { loc: ['inputs', 3], msg: 'must be a mapping' },
    ]);
    expect(errorsOf(runbookDoc({ inputs: { mailbox: 'string' } }))).toEqual([{ loc: ['inputs'], msg: 'must be a list' }]);
  });
});

describe('parseRunbook: step identity and kind', () => {
  it('refuses missing, malformed and duplicate step ids', () => {
    expect(stepErrors({ action: 'case.tag' })).toEqual([{ loc: ['steps', 0, 'id'], msg: 'field required' }]);
    expect(stepErrors({ id: 'has space', action: 'case.tag' })).toEqual([{ loc: ['steps', 0, 'id'], msg: 'must match ^[A-Za-z0-9_-]{1,64}$' }]);
    expect(stepErrors({ id: 'x'.repeat(65), action: 'case.tag' })[0]?.loc).toEqual(['steps', 0, 'id']);
    expect(stepErrors(comment, { id: 'comment', action: 'case.tag' })).toEqual([{ loc: ['steps', 1, 'id'], msg: "duplicate step id 'comment'" }]);
  });

  it('needs a known action on an action step and names the unknown one', () => {
    expect(stepErrors({ id: 'a' })).toEqual([{ loc: ['steps', 0, 'action'], msg: 'field required' }]);
    expect(stepErrors({ id: 'a', action: 'detector.mute' })).toEqual([{ loc: ['steps', 0, 'action'], msg: "unknown action 'detector.mute'" }]);
  });

  it("reports the catalog's input problems at the step's with field", () => {
    const strict: RunbookCatalog = {
      ...catalog,
      checkInput: (name, withMap) => (name === 'case.tag' && !Array.isArray(withMap.tags) ? [{ path: ['tags'], msg: 'must be a list' }] : []),
    };
    const result = parseRunbook(stringify(runbookDoc({ steps: [comment, { id: 'tag', action: 'case.tag', with: { tags: 'x' } }] })), strict);
    expect(result).toEqual({ ok: false, errors: [{ loc: ['steps', 1, 'with', 'tags'], msg: 'must be a list' }] });
    expect(parseRunbook(stringify(runbookDoc({ steps: [{ id: 'tag', action: 'case.tag', with: { tags: ['x'] } }] })), strict).ok).toBe(true);
  });

  it('allows only branch as a step type', () => {
    expect(stepErrors({ id: 'a', type: 'action', action: 'case.tag' })).toEqual([
      { loc: ['steps', 0, 'type'], msg: "must be 'branch' (leave type out for an action step)" },
    ]);
  });

  it('needs a valid when on a branch step, and refuses the action-only fields there', () => {
    expect(stepErrors({ id: 'b', type: 'branch' })).toEqual([{ loc: ['steps', 0, 'when'], msg: 'field required' }]);
    expect(stepErrors({ id: 'b', type: 'branch', when: 'trigger.x ==' })).toEqual([{ loc: ['steps', 0, 'when'], msg: 'invalid condition: broken condition' }]);
    expect(stepErrors({ id: 'b', type: 'branch', when: 'a == 1', action: 'case.tag', with: { a: 1 }, for_each: '{{ x }}' })).toEqual([
      { loc: ['steps', 0, 'action'], msg: 'a branch step has no action' },
      { loc: ['steps', 0, 'with'], msg: 'a branch step takes no with' },
      { loc: ['steps', 0, 'for_each'], msg: 'a branch step takes no for_each' },
    ]);
  });

  it('refuses when on an action step', () => {
    expect(stepErrors({ id: 'a', action: 'case.tag', when: 'a == 1' })).toEqual([{ loc: ['steps', 0, 'when'], msg: 'only branch steps take when' }]);
  });
});

describe('parseRunbook: needs and when_branch', () => {
  const branch = { id: 'check', type: 'branch', when: 'trigger.severity == "high"' };

  it('refuses needs entries that are unknown, self-references, repeated or not ids', () => {
    expect(stepErrors(comment, { id: 'b', action: 'case.tag', needs: ['nope', 'b', 'comment', 'comment', 7] })).toEqual([
      { loc: ['steps', 1, 'needs', 0], msg: "unknown step 'nope'" },
      { loc: ['steps', 1, 'needs', 1], msg: 'a step cannot need itself' },
      { loc: ['steps', 1, 'needs', 3], msg: "step 'comment' is listed twice" },
      { loc: ['steps', 1, 'needs', 4], msg: 'must be a step id' },
    ]);
    expect(stepErrors({ id: 'b', action: 'case.tag', needs: 'comment' })).toEqual([{ loc: ['steps', 0, 'needs'], msg: 'must be a list' }]);
  });

  it('accepts when_branch as the strings or YAML booleans true and false', () => {
    const steps = [
      branch,
      { id: 'yes', action: 'case.tag', needs: ['check'], when_branch: true },
      { id: 'no', action: 'case.tag', needs: ['check'], when_branch: 'false' },
    ];
    expect(runbookOf(runbookDoc({ steps })).steps.map((s) => s.when_branch)).toEqual([null, 'true', 'false']);
  });

  it('refuses other when_branch values and a when_branch with no branch step in needs', () => {
    expect(stepErrors(branch, { id: 'a', action: 'case.tag', needs: ['check'], when_branch: 'maybe' })).toEqual([
      { loc: ['steps', 1, 'when_branch'], msg: 'must be "true" or "false"' },
    ]);
    expect(stepErrors(branch, comment, { id: 'a', action: 'case.tag', needs: ['comment'], when_branch: true })).toEqual([
      { loc: ['steps', 2, 'when_branch'], msg: 'needs a branch step in needs' },
    ]);
    expect(stepErrors({ id: 'a', action: 'case.tag', when_branch: 'true' })).toEqual([
      { loc: ['steps', 0, 'when_branch'], msg: 'needs a branch step in needs' },
    ]);
  });

  it('names the steps of a needs cycle at steps', () => {
    const steps = [
      comment,
      { id: 'a', action: 'case.tag', needs: ['comment', 'c'] },
      { id: 'b', action: 'case.tag', needs: ['a'] },
      { id: 'c', action: 'case.tag', needs: ['b'] },
    ];
    expect(errorsOf(runbookDoc({ steps }))).toEqual([{ loc: ['steps'], msg: 'steps form a cycle through needs: a -> c -> b -> a' }]);
  });

  it('reports a self-reference once, not also as a cycle', () => {
    expect(stepErrors({ id: 'a', action: 'case.tag', needs: ['a'] })).toEqual([{ loc: ['steps', 0, 'needs', 0], msg: 'a step cannot need itself' }]);
  });
});

describe('parseRunbook: with, for_each and limits', () => {
  it('checks every string deep inside with as a template, at its own loc', () => {
    const step = {
      id: 'a',
      action: 'http.request',
      with: { url: 'https://x/{{ broken', headers: { auth: 'ok', list: ['fine', '{{ broken }}', 3, true] }, n: 5 },
    };
    expect(stepErrors(step)).toEqual([
      { loc: ['steps', 0, 'with', 'url'], msg: 'invalid template: broken template' },
      { loc: ['steps', 0, 'with', 'headers', 'list', 1], msg: 'invalid template: broken template' },
    ]);
    expect(stepErrors({ id: 'a', action: 'case.tag', with: ['a'] })).toEqual([{ loc: ['steps', 0, 'with'], msg: 'must be a mapping' }]);
  });

  it('syntax-checks for_each as a template', () => {
    expect(stepErrors({ id: 'a', action: 'case.tag', for_each: '{{ broken' })).toEqual([
      { loc: ['steps', 0, 'for_each'], msg: 'invalid template: broken template' },
    ]);
    expect(stepErrors({ id: 'a', action: 'case.tag', for_each: ['a'] })).toEqual([{ loc: ['steps', 0, 'for_each'], msg: 'must be a string' }]);
  });

  it.each([
    ['timeout_s', 0, 'must be an integer from 1 to 86400'],
    ['timeout_s', 86_401, 'must be an integer from 1 to 86400'],
    ['timeout_s', 1.5, 'must be an integer from 1 to 86400'],
    ['retries', -1, 'must be an integer from 0 to 10'],
    ['retries', 11, 'must be an integer from 0 to 10'],
    ['autonomous', 'yes', 'must be true or false'],
  ])('refuses %s = %s', (field, value, msg) => {
    expect(stepErrors({ id: 'a', action: 'case.tag', [field]: value })).toEqual([{ loc: ['steps', 0, field], msg }]);
  });

  it('accepts the bounds of timeout_s and retries', () => {
    const step = runbookOf(runbookDoc({ steps: [{ id: 'a', action: 'case.tag', timeout_s: 86_400, retries: 10 }] })).steps[0];
    expect(step).toMatchObject({ timeout_s: 86_400, retries: 10 });
  });
});

describe('parseRunbook: on_error, approval, ui', () => {
  it('refuses on_error values other than fail, continue and a goto to another existing step', () => {
    expect(stepErrors({ id: 'a', action: 'case.tag', on_error: 'explode' })).toEqual([
      { loc: ['steps', 0, 'on_error'], msg: 'must be fail, continue or goto:<step_id>' },
    ]);
    expect(stepErrors({ id: 'a', action: 'case.tag', on_error: 'goto:nope' })).toEqual([
      { loc: ['steps', 0, 'on_error'], msg: "goto names unknown step 'nope'" },
    ]);
    expect(stepErrors({ id: 'a', action: 'case.tag', on_error: 'goto:a' })).toEqual([{ loc: ['steps', 0, 'on_error'], msg: 'a step cannot goto itself' }]);
  });

  it('refuses approvals without valid roles or with a non-positive timeout', () => {
    const approvalErrors = (approval: unknown) => stepErrors({ id: 'a', action: 'case.tag', approval });
    expect(approvalErrors({})).toEqual([{ loc: ['steps', 0, 'approval', 'roles'], msg: 'field required' }]);
    expect(approvalErrors({ roles: [] })).toEqual([{ loc: ['steps', 0, 'approval', 'roles'], msg: 'must name at least one role' }]);
    expect(approvalErrors({ roles: ['approver', 'root'] })).toEqual([
      { loc: ['steps', 0, 'approval', 'roles', 1], msg: 'must be one of viewer, analyst, approver, admin' },
    ]);
    expect(approvalErrors({ roles: ['admin'], timeout_h: 0, message: 5 })).toEqual([
      { loc: ['steps', 0, 'approval', 'timeout_h'], msg: 'must be a positive number of hours' },
      { loc: ['steps', 0, 'approval', 'message'], msg: 'must be a string' },
    ]);
    expect(approvalErrors(true)).toEqual([{ loc: ['steps', 0, 'approval'], msg: 'must be a mapping' }]);
  });

  it('needs numeric x and y in ui', () => {
    expect(stepErrors({ id: 'a', action: 'case.tag', ui: { x: 'left' } })).toEqual([
      { loc: ['steps', 0, 'ui', 'x'], msg: 'must be a number' },
      { loc: ['steps', 0, 'ui', 'y'], msg: 'field required' },
    ]);
  });
});
