/**
 * The runbook editor's reading and writing of the YAML it holds (docs/console.md "Runbook
 * authoring"), with the `yaml` library's document model so an edit made on the canvas keeps
 * the author's comments, order and flow style:
 * - `readDraft(text)`: the steps as the graph draws them (`GraphStep`), read loosely: the
 *   server's `POST /runbooks/validate` is the judge of a runbook, this only draws what is there.
 * - `withNeeds`, `withPosition`, `withStep`, `withVersion`: the text after one edit, spliced
 *   where the changed node is written so every other byte stays the author's; a document
 *   with no place for it (no `needs` key yet, a flow `steps` list) is written anew.
 * Pure: no API, no DOM.
 */
import { type Document, isMap, isScalar, isSeq, type Node, parseDocument, stringify, YAMLMap, YAMLSeq } from 'yaml';
import type { GraphStep } from '../api-shapes.ts';
import { lineEnd } from '../yaml-loc.ts';

/** The draft as the canvas draws it, or why it cannot be read as YAML at all. */
export type Draft = { ok: true; slug: string | null; version: number | null; steps: GraphStep[] } | { ok: false; msg: string };

/** A new step the canvas adds: its id, action, the steps it needs and where it is drawn. */
export type NewStep = { id: string; action: string; needs: string[]; ui: { x: number; y: number } };

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

const onErrorOf = (value: unknown): GraphStep['on_error'] => {
  if (typeof value === 'string' && value.startsWith('goto:')) return { kind: 'goto', target: value.slice('goto:'.length) };
  return value === 'continue' ? { kind: 'continue' } : { kind: 'fail' };
};

const position = (value: unknown): GraphStep['ui'] => {
  const ui = record(value);
  return ui && typeof ui.x === 'number' && typeof ui.y === 'number' ? { x: ui.x, y: ui.y } : null;
};

function stepOf(value: unknown): GraphStep | null {
  const step = record(value);
  if (!step || typeof step.id !== 'string' || step.id === '') return null;
  const branch =
    step.when_branch === true || step.when_branch === 'true' ? 'true' : step.when_branch === false || step.when_branch === 'false' ? 'false' : null;
  return {
    id: step.id,
    kind: step.type === 'branch' ? 'branch' : 'action',
    action: typeof step.action === 'string' ? step.action : null,
    needs: Array.isArray(step.needs) ? step.needs.filter((need): need is string => typeof need === 'string') : [],
    when_branch: branch,
    on_error: onErrorOf(step.on_error),
    ui: position(step.ui),
  };
}

const parse = (text: string): Document.Parsed => parseDocument(text, { prettyErrors: true });

/** The draft's slug (`id`), `version` and steps; `ok: false` with the parser's message when the text is not YAML. */
export function readDraft(text: string): Draft {
  const doc = parse(text);
  const [error] = doc.errors;
  if (error) return { ok: false, msg: error.message.split('\n')[0] ?? 'not YAML' };
  const root = record(doc.toJS());
  const steps = Array.isArray(root?.steps) ? root.steps.map(stepOf).filter((step): step is GraphStep => step !== null) : [];
  return {
    ok: true,
    slug: typeof root?.id === 'string' ? root.id : null,
    version: typeof root?.version === 'number' ? root.version : null,
    steps,
  };
}

/** The `steps` sequence's item whose `id` is `stepId`, or null. */
function stepNode(doc: Document.Parsed, stepId: string): YAMLMap | null {
  const steps = doc.get('steps');
  if (!isSeq(steps)) return null;
  const found = steps.items.find((item) => isMap(item) && item.get('id') === stepId);
  return isMap(found) ? found : null;
}

/** `value` as a flow-style node (`[a, b]`, `{ x: 0, y: 0 }`), as runbooks write short lists and positions. */
function flowNode(doc: Document.Parsed, value: unknown): Node {
  const node = doc.createNode(value);
  if (node instanceof YAMLMap || node instanceof YAMLSeq) node.flow = true;
  return node;
}

/** A scalar as YAML writes it in a block (quoted only when it must be). */
const scalarText = (value: string | number): string => stringify(value).trimEnd();
/** `value` as one flow collection (`[a, 'b, c']`, `{ x: 0, y: 0 }`), as runbooks write short lists and positions. */
const flowText = (value: readonly string[] | { x: number; y: number }): string =>
  stringify(value, { collectionStyle: 'flow', flowCollectionPadding: !Array.isArray(value) }).trimEnd();
const needsText = (needs: readonly string[]): string => flowText(needs);
const uiText = (ui: { x: number; y: number }): string => flowText({ x: Math.round(ui.x), y: Math.round(ui.y) });

/** One change to the text: `insert` in place of `from`..`to`. */
type Splice = { from: number; to: number; insert: string };

/**
 * An edit: a splice of the text where the node it changes has a place in the source, so
 * the rest of the author's text is kept byte for byte; else `true` once it has changed the
 * document (the text is then written anew); `false` when there is nothing to change.
 */
type Edit = (doc: Document.Parsed) => Splice | boolean;

/** Applies `edit` to the parsed text; the text unchanged when it is not YAML or `edit` finds nothing to change. */
function edited(text: string, edit: Edit): string {
  const doc = parse(text);
  if (doc.errors.length > 0) return text;
  const change = edit(doc);
  if (change === false) return text;
  if (change === true) return doc.toString({ lineWidth: 0 });
  return text.slice(0, change.from) + change.insert + text.slice(change.to);
}

/** `map`'s pair for `key`, or undefined. */
const pairOf = (map: YAMLMap, key: string) => map.items.find((item) => isScalar(item.key) && item.key.value === key);

/** The end of `text[from..to]` without its trailing whitespace: a block node's range takes in its last newline. */
const contentEnd = (text: string, from: number, to: number): number => from + text.slice(from, to).trimEnd().length;

/**
 * A splice putting `insert` where `map`'s value for `key` is written, or null when it has no
 * place in the source. A block collection's value is written from its key's colon on, so
 * `needs:\n  - a` becomes `needs: [b]` on one line.
 */
function valueSplice(text: string, map: YAMLMap, key: string, insert: string): Splice | null {
  const pair = pairOf(map, key);
  const value = pair?.value as Node | null | undefined;
  if (!value?.range) return null;
  const to = contentEnd(text, value.range[0], value.range[1]);
  const keyEnd = (pair?.key as Node | undefined)?.range?.[1];
  if ((isMap(value) || isSeq(value)) && !value.flow && keyEnd !== undefined && /^\s*:\s*$/.test(text.slice(keyEnd, value.range[0]))) {
    return { from: keyEnd, to, insert: `: ${insert}` };
  }
  return { from: value.range[0], to, insert };
}

/** A splice adding `key: valueText` as the last line of block mapping `map`, at its keys' column; null for a flow mapping. */
function pairInsert(text: string, map: YAMLMap, key: string, valueText: string): Splice | null {
  if (map.flow || !map.range) return null;
  const start = map.range[0];
  const line = `${' '.repeat(start - (text.lastIndexOf('\n', start - 1) + 1))}${key}: ${valueText}`;
  return lineAfter(text, map.range[1], line);
}

/** A splice adding `lines` after a block node whose range ends at `end` (after its newline, or at the end of the text). */
const lineAfter = (text: string, end: number, lines: string): Splice =>
  text[end - 1] === '\n' ? { from: end, to: end, insert: `${lines}\n` } : { from: end, to: end, insert: `\n${lines}` };

/** A splice removing `map`'s pair for `key` with its line(s) and any comment ending them, or null unless the pair stands on lines of its own. */
function pairRemoval(text: string, map: YAMLMap, key: string): Splice | null {
  const pair = pairOf(map, key);
  const keyStart = (pair?.key as Node | undefined)?.range?.[0];
  const valueRange = (pair?.value as Node | null | undefined)?.range;
  if (keyStart === undefined || !valueRange) return null;
  const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
  const valueEnd = contentEnd(text, valueRange[0], valueRange[1]);
  const end = lineEnd(text, valueEnd);
  const rest = text.slice(valueEnd, end).trim();
  if (text.slice(lineStart, keyStart).trim() !== '' || (rest !== '' && !rest.startsWith('#'))) return null;
  return { from: lineStart, to: Math.min(text.length, end + 1), insert: '' };
}

/** The text with step `stepId`'s `needs` set to `needs` (the key removed when empty). */
export function withNeeds(text: string, stepId: string, needs: readonly string[]): string {
  return edited(text, (doc) => {
    const step = stepNode(doc, stepId);
    if (!step) return false;
    if (needs.length === 0) {
      if (!step.has('needs')) return false;
      const removal = pairRemoval(text, step, 'needs');
      if (removal) return removal;
      step.delete('needs');
      return true;
    }
    const splice = valueSplice(text, step, 'needs', needsText(needs)) ?? pairInsert(text, step, 'needs', needsText(needs));
    if (splice) return splice;
    step.set('needs', flowNode(doc, [...needs]));
    return true;
  });
}

/** The text with step `stepId` drawn at `ui` (rounded to whole pixels). */
export function withPosition(text: string, stepId: string, ui: { x: number; y: number }): string {
  return edited(text, (doc) => {
    const step = stepNode(doc, stepId);
    if (!step) return false;
    const splice = valueSplice(text, step, 'ui', uiText(ui)) ?? pairInsert(text, step, 'ui', uiText(ui));
    if (splice) return splice;
    step.set('ui', flowNode(doc, { x: Math.round(ui.x), y: Math.round(ui.y) }));
    return true;
  });
}

/** The lines of `step` as an item of a block sequence whose items begin with `prefix` (`"  - "`). */
function stepLines(step: NewStep, prefix: string): string {
  const indent = ' '.repeat(prefix.length);
  const lines = [`${prefix}id: ${scalarText(step.id)}`, `${indent}action: ${scalarText(step.action)}`];
  if (step.needs.length > 0) lines.push(`${indent}needs: ${needsText(step.needs)}`);
  lines.push(`${indent}ui: ${uiText(step.ui)}`, `${indent}with: {}`);
  return lines.join('\n');
}

/** A splice appending `step` below the last item of a block `steps` list written as `- key: ...`, or null. */
function stepAppend(text: string, steps: YAMLSeq, step: NewStep): Splice | null {
  const last = steps.items.at(-1);
  if (steps.flow || !isMap(last) || last.flow || !last.range) return null;
  const itemStart = last.range[0];
  const prefix = text.slice(text.lastIndexOf('\n', itemStart - 1) + 1, itemStart);
  return /^ *- +$/.test(prefix) ? lineAfter(text, last.range[1], stepLines(step, prefix)) : null;
}

/** The text with `step` appended to `steps` (a `steps` list made when there is none); unchanged when a step has its id. */
export function withStep(text: string, step: NewStep): string {
  return edited(text, (doc) => {
    if (stepNode(doc, step.id)) return false;
    const steps = doc.get('steps');
    const append = isSeq(steps) ? stepAppend(text, steps, step) : null;
    if (append) return append;
    if (!isSeq(steps)) doc.set('steps', doc.createNode([]));
    const node = new YAMLMap();
    node.set('id', step.id);
    node.set('action', step.action);
    if (step.needs.length > 0) node.set('needs', flowNode(doc, step.needs));
    node.set('ui', flowNode(doc, { x: Math.round(step.ui.x), y: Math.round(step.ui.y) }));
    node.set('with', flowNode(doc, {}));
    doc.addIn(['steps'], node);
    return true;
  });
}

/** The text with its top-level `version` set to `version`. */
export function withVersion(text: string, version: number): string {
  return edited(text, (doc) => {
    if (!isMap(doc.contents)) return false;
    const splice = valueSplice(text, doc.contents, 'version', String(version)) ?? pairInsert(text, doc.contents, 'version', String(version));
    if (splice) return splice;
    doc.set('version', version);
    return true;
  });
}
