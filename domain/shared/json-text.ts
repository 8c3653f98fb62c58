/**
 * What a parsed JSON document may hold before anything stores it (issue 19). PostgreSQL
 * text and jsonb refuse the NUL character and unpaired UTF-16 surrogates, and deeply
 * nested documents overflow the stack of every recursive reader (JSON.stringify,
 * canonical JSON, flattening). Both walks here are iterative, so a document of any
 * depth is inspected without recursion.
 *
 * Paths are lists of object keys and array indexes from the document's root.
 */

export type JsonPath = (string | number)[];

/** A NUL or a UTF-16 surrogate that is not half of a pair (in `u` mode a pair is one code point and never matches). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const BAD_TEXT = /[\u0000\ud800-\udfff]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const BAD_TEXT_GLOBAL = /[\u0000\ud800-\udfff]/gu;

/** True when `s` holds a character no stored text may hold. */
export const hasBadText = (s: string): boolean => BAD_TEXT.test(s);

type Visit = { value: unknown; path: JsonPath; depth: number };

/** Children of a container with their paths; keys come before values so a bad key is found. */
function children(v: Visit): Visit[] {
  if (Array.isArray(v.value)) return v.value.map((value, i) => ({ value, path: [...v.path, i], depth: v.depth + 1 }));
  if (v.value !== null && typeof v.value === 'object') {
    return Object.entries(v.value as Record<string, unknown>).map(([key, value]) => ({ value, path: [...v.path, key], depth: v.depth + 1 }));
  }
  return [];
}

/**
 * The first problem of `document`: a container nested deeper than `maxDepth` (the root
 * is depth 1), or a key or string holding a NUL or an unpaired surrogate; null when
 * there is none. Depth is reported first, so a document too deep to store is never
 * walked to its bottom.
 */
export function firstJsonProblem(document: unknown, maxDepth: number): { kind: 'too_deep' | 'bad_text'; path: JsonPath } | null {
  const stack: Visit[] = [{ value: document, path: [], depth: 0 }];
  let badText: JsonPath | null = null;
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const { value } = visit;
    if (typeof value === 'string') {
      if (badText === null && hasBadText(value)) badText = visit.path;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (visit.depth + 1 > maxDepth) return { kind: 'too_deep', path: visit.path };
    if (badText === null && !Array.isArray(value)) {
      const key = Object.keys(value).find(hasBadText);
      if (key !== undefined) badText = [...visit.path, key];
    }
    stack.push(...children(visit));
  }
  return badText === null ? null : { kind: 'bad_text', path: badText };
}

/**
 * `document` with every NUL and unpaired surrogate in its keys and strings replaced by
 * U+FFFD, and the paths (in the repaired document) of the strings and keys that changed.
 * Values that need no repair are returned as they are. Call it only on a document that
 * passed the depth check.
 */
export function repairJsonText(document: unknown): { value: unknown; repaired: JsonPath[] } {
  const repaired: JsonPath[] = [];
  const fix = (s: string) => s.replace(BAD_TEXT_GLOBAL, '\ufffd');
  const rootBox: { value: unknown } = { value: document };
  // Each entry rebuilds one container in place of its parent's slot.
  const stack: { holder: Record<string | number, unknown>; key: string | number; path: JsonPath }[] = [
    { holder: rootBox as Record<string, unknown>, key: 'value', path: [] },
  ];
  while (stack.length > 0) {
    const { holder, key, path } = stack.pop() as (typeof stack)[number];
    const value = holder[key];
    if (typeof value === 'string') {
      if (hasBadText(value)) {
        holder[key] = fix(value);
        repaired.push(path);
      }
    } else if (Array.isArray(value)) {
      const copy = [...value];
      holder[key] = copy;
      for (let i = 0; i < copy.length; i++) stack.push({ holder: copy as unknown as Record<number, unknown>, key: i, path: [...path, i] });
    } else if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const fixed = fix(k);
        if (fixed !== k) repaired.push([...path, fixed]);
        copy[fixed] = v;
      }
      holder[key] = copy;
      for (const k of Object.keys(copy)) stack.push({ holder: copy, key: k, path: [...path, k] });
    }
  }
  return { value: rootBox.value, repaired };
}

/** True when some string value anywhere in `document` (not a key) passes `test`; iterative like the walks above. */
export function someString(document: unknown, test: (s: string) => boolean): boolean {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (test(value)) return true;
    } else if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return false;
}
