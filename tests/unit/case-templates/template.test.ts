/**
 * Case template files (docs/configuration.md "Case templates"): the shipped templates
 * parse, and every problem of a bad file is reported with its path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCaseTemplate } from '../../../domain/case-templates/template.ts';
import { repoRoot } from '../../support/fixtures.ts';

const errorsOf = (yaml: string) => {
  const r = parseCaseTemplate(yaml);
  return r.ok ? [] : r.errors;
};

describe('parseCaseTemplate', () => {
  it('reads the shipped templates: tasks in template order with their phase, and the SLA policy', () => {
    for (const file of ['phishing.yml', 'endpoint-compromise.yml']) {
      const r = parseCaseTemplate(readFileSync(join(repoRoot, 'case-templates', file), 'utf8'));
      expect(r.ok, file).toBe(true);
    }
    const r = parseCaseTemplate(`
id: lost-laptop
name: Lost laptop
phases:
  - name: Triage
    tasks:
      - title: " Confirm the device serial "
        description: From the asset inventory.
  - name: Containment
    tasks: [{ title: Wipe the device }]
sla: { ack_minutes: 60 }
auto_ai_triage: true
`);
    expect(r).toEqual({
      ok: true,
      template: {
        id: 'lost-laptop',
        name: 'Lost laptop',
        description: null,
        phases: ['Triage', 'Containment'],
        tasks: [
          { phase: 'Triage', title: 'Confirm the device serial', description: 'From the asset inventory.' },
          { phase: 'Containment', title: 'Wipe the device', description: null },
        ],
        sla: { ack_minutes: 60, resolve_minutes: null },
        autoAiTriage: true,
      },
    });
  });

  it('reports every problem with its path', () => {
    const errors = errorsOf(`
id: Bad Id
phases:
  - name: Triage
    tasks:
      - title: Same
      - title: Same
      - description: no title
  - name: Triage
    tasks: []
    owner: x
sla: { ack_minutes: 0, resolve_minutes: 1.5 }
auto_ai_triage: "yes"
extra: 1
`);
    expect(errors).toEqual(
      expect.arrayContaining([
        { loc: ['extra'], msg: "unknown field 'extra'" },
        { loc: ['auto_ai_triage'], msg: 'must be true or false' },
        { loc: ['id'], msg: 'must match ^[a-z0-9-]{3,64}$' },
        { loc: ['name'], msg: 'field required' },
        { loc: ['phases', 0, 'tasks', 1, 'title'], msg: "task 'Same' appears twice in this phase" },
        { loc: ['phases', 0, 'tasks', 2, 'title'], msg: 'field required' },
        { loc: ['phases', 1, 'owner'], msg: "unknown field 'owner'" },
        { loc: ['phases', 1, 'name'], msg: "phase 'Triage' appears twice" },
        { loc: ['sla', 'ack_minutes'], msg: 'must be an integer from 1 to 525600' },
        { loc: ['sla', 'resolve_minutes'], msg: 'must be an integer from 1 to 525600' },
      ]),
    );
  });

  it('refuses YAML that is not a template mapping, an empty phase list and an empty SLA', () => {
    expect(errorsOf('id: [unclosed')[0]?.msg).toMatch(/^invalid YAML/);
    expect(errorsOf('- a list')).toEqual([{ loc: [], msg: 'a case template must be a YAML mapping' }]);
    expect(errorsOf('id: t-1\nname: T\nphases: []\n')).toEqual([{ loc: ['phases'], msg: 'must list at least one phase' }]);
    expect(errorsOf('id: t-1\nname: T\nphases: [{name: A, tasks: [{title: x}]}]\nsla: {}\n')).toEqual([
      { loc: ['sla'], msg: 'must set ack_minutes, resolve_minutes or both' },
    ]);
  });
});
