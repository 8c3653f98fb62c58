import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { isArbitrary, NEW_SPEC_TEXT, readSpec, specText } from '../../../console/src/custom-actions/spec-text.ts';
import { customActionSpecSchema } from '../../../domain/custom-actions/spec.ts';
import { specProblems } from '../../../domain/custom-actions/templates.ts';

describe("the custom action editor's spec text", () => {
  it('starts a new action from a spec the service takes as it stands', () => {
    const draft = readSpec(NEW_SPEC_TEXT);
    if (!draft.ok) throw new Error(draft.msg);
    const parsed = v.safeParse(customActionSpecSchema, draft.spec);
    expect(parsed.issues).toBeUndefined();
    expect(parsed.success && specProblems(parsed.output)).toEqual([]);
    expect(isArbitrary(draft.spec)).toBe(false);
  });

  it('writes a spec as YAML and reads the same object back, long templates unfolded', () => {
    const spec = { name: 'custom.intel.get_host', http: { method: 'GET', path: `/hosts/{{ inputs.ip }}/${'x'.repeat(120)}`, body: null }, outputs: [] };
    const text = specText(spec);
    expect(text.split('\n').find((line) => line.includes('path:'))).toBe(`  path: /hosts/{{ inputs.ip }}/${'x'.repeat(120)}`);
    expect(readSpec(text)).toEqual({ ok: true, spec });
  });

  it("writes a stored spec's fields in their documented order, whatever order the database kept", () => {
    const stored = {
      ssh: null,
      http: { query: {}, path: '/h', method: 'GET' },
      name: 'custom.x',
      risk: 'read',
      title: 'X',
      zzz: 1,
      inputs: [{ type: 'string', name: 'ip' }],
    };
    expect(specText(stored)).toBe(
      'name: custom.x\ntitle: X\ninputs:\n  - name: ip\n    type: string\nhttp:\n  method: GET\n  path: /h\n  query: {}\nssh: null\nrisk: read\nzzz: 1\n',
    );
  });

  it('says why a text is not a spec: not YAML, or not a mapping', () => {
    const broken = readSpec('name: [custom.x');
    expect(broken.ok).toBe(false);
    expect(readSpec('- name: custom.x')).toEqual({ ok: false, msg: 'A spec is a mapping of its fields: name, title, transport and the rest.' });
    expect(readSpec('just text').ok).toBe(false);
  });

  it('puts a spec in the arbitrary tier by its risk or its effect type', () => {
    expect(isArbitrary({ risk: 'arbitrary', effect_type: 'enrich' })).toBe(true);
    expect(isArbitrary({ risk: 'read', effect_type: 'arbitrary' })).toBe(true);
    expect(isArbitrary({ risk: 'write', effect_type: 'ticket' })).toBe(false);
  });
});
