/**
 * Where a path into a YAML document sits in its text, for a server's validation problems
 * (`{loc, msg}`, SPEC.md "Errors") drawn at their line by the YAML editors: a runbook's
 * (`POST /runbooks/validate`) and a custom action's spec (`POST /custom-actions`).
 * Pure: no API, no DOM.
 */
import { isMap, isPair, isScalar, isSeq, type Node, parseDocument } from 'yaml';
import type { ValidationProblem } from './errors.ts';

/** From `offset`, the end of its line. */
export const lineEnd = (text: string, offset: number): number => {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
};

/**
 * Where `loc` points in `text`, as `{from, to}` character offsets on one line: the deepest
 * node of the path that exists (a problem with a missing key is shown on the mapping that
 * lacks it, `[]` on the document's first node), from its key when it has one; the first
 * line for text that is not YAML.
 */
export function locRange(text: string, loc: readonly (string | number)[]): { from: number; to: number } {
  const doc = parseDocument(text);
  let node: unknown = doc.contents;
  let from: number | null = null;
  for (const segment of loc) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair || !isScalar(pair.key)) break;
      from = pair.key.range?.[0] ?? from;
      node = pair.value ?? pair.key;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      from = null;
    } else break;
  }
  const range = (node as Node | null)?.range;
  const start = from ?? range?.[0] ?? 0;
  return { from: start, to: Math.max(start, Math.min(range?.[1] ?? lineEnd(text, start), lineEnd(text, start))) };
}

/** The 1-based line of character `offset`. */
export const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** A problem of a YAML text: the server's `{loc, msg}`, where it sits, and on which line. */
export type PlacedProblem = ValidationProblem & { from: number; to: number; line: number };

/** `problems` placed in `text`. */
export const placed = (text: string, problems: readonly ValidationProblem[]): PlacedProblem[] =>
  problems.map((problem) => {
    const range = locRange(text, problem.loc);
    return { ...problem, ...range, line: lineOf(text, range.from) };
  });
