import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { FieldReader } from '../../../domain/runbooks/field-reader.ts';
import type { RunbookError } from '../../../domain/runbooks/model.ts';

const Steps = v.pipe(v.array(v.strictObject({ id: v.string('must be a string') }), 'must be a list'), v.minLength(1, 'must have at least one step'));
const Needs = v.nullish(v.array(v.string('must be a step id'), 'must be a list'), () => []);

function read(fields: Record<string, unknown>, key: string, schema: v.GenericSchema) {
  const errors: RunbookError[] = [];
  const items = new FieldReader(fields, ['steps', 0], errors).list(key, schema);
  return { items, errors };
}

describe('FieldReader.list', () => {
  it("reports the list-level problems only: the items are the caller's to check, once", () => {
    expect(read({ steps: [{ id: 1 }, 'x'] }, 'steps', Steps)).toEqual({ items: [{ id: 1 }, 'x'], errors: [] });
    expect(read({ steps: [] }, 'steps', Steps).errors).toEqual([{ loc: ['steps', 0, 'steps'], msg: 'must have at least one step' }]);
    expect(read({ steps: { a: 1 } }, 'steps', Steps)).toEqual({ items: null, errors: [{ loc: ['steps', 0, 'steps'], msg: 'must be a list' }] });
  });

  it('reads an absent optional list as its default and a wrong one as reported', () => {
    expect(read({}, 'needs', Needs)).toEqual({ items: [], errors: [] });
    expect(read({ needs: 'a' }, 'needs', Needs)).toEqual({ items: null, errors: [{ loc: ['steps', 0, 'needs'], msg: 'must be a list' }] });
  });

  it('refuses a schema that is not a list, a mistake in the parser rather than in the document', () => {
    expect(() => read({ name: 'x' }, 'name', v.string())).toThrow(/needs an array schema/);
  });
});
