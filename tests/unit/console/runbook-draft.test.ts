/**
 * The runbook editor's YAML model (console/src/runbook-editor/draft.ts): the canvas reads
 * the steps of a draft the server has not judged yet, places a validation problem at its
 * line, and writes its edits back without losing the author's comments.
 */
import { describe, expect, it } from 'vitest';
import { readDraft, withNeeds, withPosition, withStep, withVersion } from '../../../console/src/runbook-editor/draft.ts';
import { lineOf, locRange } from '../../../console/src/yaml-loc.ts';
import { EVERY_FIELD_RUNBOOK } from '../../support/runbook-documents.ts';

const DRAFT = `# tried on a case first
id: new-book
version: 1
trigger: { type: manual }
steps:
  - id: tag # the first step
    action: case.update
    with: { tags_add: [triage] }
  - id: close
    action: case.update
    retries: 99
    with: { status: closed }
`;

describe('readDraft', () => {
  it('reads every kind of edge the graph draws from a full runbook', () => {
    const draft = readDraft(EVERY_FIELD_RUNBOOK);
    expect(draft).toMatchObject({ ok: true, slug: 'phishing-triage', version: 3 });
    if (!draft.ok) return;
    expect(draft.steps).toEqual([
      { id: 'is-internal', kind: 'branch', action: null, needs: [], when_branch: null, on_error: { kind: 'fail' }, ui: { x: 0, y: 0 } },
      { id: 'tag', kind: 'action', action: 'case.tag', needs: ['is-internal'], when_branch: 'true', on_error: { kind: 'continue' }, ui: { x: 10, y: 20.5 } },
      {
        id: 'notify',
        kind: 'action',
        action: 'notify.email',
        needs: ['is-internal', 'tag'],
        when_branch: 'false',
        on_error: { kind: 'goto', target: 'tag' },
        ui: null,
      },
    ]);
  });

  it('skips what is not a step and says why text is not YAML', () => {
    expect(readDraft('steps: [1, {action: x}, {id: ok}]')).toMatchObject({ ok: true, slug: null, steps: [{ id: 'ok', needs: [] }] });
    const broken = readDraft('id: x\nsteps: [\n');
    expect(broken.ok).toBe(false);
  });
});

describe('locRange', () => {
  const lineAt = (loc: (string | number)[]) => lineOf(DRAFT, locRange(DRAFT, loc).from);

  it("puts a problem on its key's line, and a missing key on the mapping that lacks it", () => {
    expect(lineAt(['steps', 1, 'retries'])).toBe(11);
    expect(DRAFT.slice(locRange(DRAFT, ['steps', '1', 'retries']).from, locRange(DRAFT, ['steps', '1', 'retries']).to)).toBe('retries: 99');
    expect(lineAt(['steps', 0, 'with', 'tags_add'])).toBe(8);
    expect(lineAt(['steps', 1, 'needs'])).toBe(9);
    // The document's mapping begins on line 2, below its comment.
    expect(lineAt(['name'])).toBe(2);
    expect(lineAt([])).toBe(2);
    expect(locRange('steps: [', ['steps'])).toEqual({ from: 0, to: 8 });
  });
});

describe('edits', () => {
  /** The lines of `after` that are not lines of `before`, and the other way round. */
  const changedLines = (before: string, after: string) => {
    const [a, b] = [before.split('\n'), after.split('\n')];
    return { added: b.filter((line) => !a.includes(line)), removed: a.filter((line) => !b.includes(line)) };
  };

  it('links, relinks and unlinks a step, changing only its needs line', () => {
    const linked = withNeeds(DRAFT, 'close', ['tag']);
    expect(changedLines(DRAFT, linked)).toEqual({ added: ['    needs: [tag]'], removed: [] });
    expect(readDraft(linked)).toMatchObject({
      steps: [
        { id: 'tag', needs: [] },
        { id: 'close', needs: ['tag'] },
      ],
    });
    expect(changedLines(linked, withNeeds(linked, 'close', ['tag', 'x, y']))).toEqual({ added: ['    needs: [tag, "x, y"]'], removed: ['    needs: [tag]'] });
    expect(withNeeds(linked, 'close', [])).toBe(DRAFT);
    expect(withNeeds(DRAFT, 'close', [])).toBe(DRAFT);
    expect(withNeeds(DRAFT, 'nope', ['tag'])).toBe(DRAFT);
  });

  it('replaces a block needs list in place and removes it with a comment ending it', () => {
    const block = DRAFT.replace('    retries: 99\n', '    needs:\n      - tag # why\n    retries: 99\n');
    expect(changedLines(block, withNeeds(block, 'close', ['x']))).toEqual({ added: ['    needs: [x]'], removed: ['    needs:', '      - tag # why'] });
    expect(withNeeds(block, 'close', [])).toBe(DRAFT);
  });

  it('writes anew a document with no place for the edit, keeping comments', () => {
    const flow = '# kept\nid: f\nsteps: [{ id: a, action: x }, { id: b, action: y }]\n';
    const linked = withNeeds(flow, 'b', ['a']);
    expect(linked).toContain('# kept');
    expect(readDraft(linked)).toMatchObject({ steps: [{ id: 'a' }, { id: 'b', needs: ['a'] }] });
  });

  it('places a step at whole pixels and appends a new one once, below the last step', () => {
    const placed = withPosition(DRAFT, 'tag', { x: 10.4, y: -3.6 });
    expect(changedLines(DRAFT, placed)).toEqual({ added: ['    ui: { x: 10, y: -4 }'], removed: [] });
    expect(changedLines(placed, withPosition(placed, 'tag', { x: 1, y: 2 }))).toEqual({
      added: ['    ui: { x: 1, y: 2 }'],
      removed: ['    ui: { x: 10, y: -4 }'],
    });
    const added = withStep(DRAFT, { id: 'notify', action: 'notify.email', needs: ['close'], ui: { x: 0, y: 280 } });
    expect(added).toBe(`${DRAFT}  - id: notify\n    action: notify.email\n    needs: [close]\n    ui: { x: 0, y: 280 }\n    with: {}\n`);
    expect(readDraft(added)).toMatchObject({ steps: [{}, {}, { id: 'notify', action: 'notify.email', needs: ['close'], ui: { x: 0, y: 280 } }] });
    expect(withStep(added, { id: 'notify', action: 'case.update', needs: [], ui: { x: 0, y: 0 } })).toBe(added);
    const unterminated = withStep('steps:\n- id: a\n  action: x', { id: 'b', action: 'y', needs: [], ui: { x: 0, y: 0 } });
    expect(unterminated).toBe('steps:\n- id: a\n  action: x\n- id: b\n  action: y\n  ui: { x: 0, y: 0 }\n  with: {}');
    expect(readDraft(withStep('id: empty\n', { id: 'first', action: 'case.update', needs: [], ui: { x: 0, y: 0 } }))).toMatchObject({
      steps: [{ id: 'first', needs: [] }],
    });
  });

  it('bumps the version in place and leaves text that is not YAML alone', () => {
    expect(withVersion(DRAFT, 2)).toBe(DRAFT.replace('version: 1', 'version: 2'));
    expect(withVersion('id: x\n', 2)).toBe('id: x\nversion: 2\n');
    expect(withVersion('steps: [', 2)).toBe('steps: [');
  });
});
