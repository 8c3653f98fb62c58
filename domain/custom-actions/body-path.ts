/**
 * Where a constrained HTTP action's JSON body field goes (SPEC.md "Custom action":
 * declared JSON-body fields). A field name is a path: dots go into nested objects and
 * `[n]` into arrays, so vendors whose bodies nest or take lists can be spoken to:
 * `configuration.value` is `{"configuration": {"value": ...}}`, `append[0].value` is
 * `{"append": [{"value": ...}]}`, `filter.ids[0]` is `{"filter": {"ids": [...]}}`.
 *
 * `bodyFieldPath` parses a name (null when it is not one: an empty or `__proto__` key, an
 * index that is not a whole number under MAX_BODY_INDEX); `bodyFieldConflict` finds a name
 * whose place another name already gives another shape (`a` and `a.b`, `a[0]` and `a.b`).
 */

/** Indices a body field may name: 0 to 99, enough for any list a step sends one by one. */
export const MAX_BODY_INDEX = 100;

export type BodyStep = { key: string } | { index: number };

const SEGMENT = /^([^[\]]+)((?:\[\d+\])*)$/;

/** The steps of body field `name`, or null when the name is not a body path. */
export function bodyFieldPath(name: string): BodyStep[] | null {
  const steps: BodyStep[] = [];
  for (const segment of name.split('.')) {
    const match = SEGMENT.exec(segment);
    const key = match?.[1];
    if (!match || key === undefined || key === '__proto__') return null;
    steps.push({ key });
    for (const [, digits] of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) {
      const index = Number(digits);
      if (index >= MAX_BODY_INDEX) return null;
      steps.push({ index });
    }
  }
  return steps;
}

type Shape = 'value' | 'object' | 'array';

/**
 * The first name of `names` (all parsed) whose path crosses a place another name gives
 * another shape, with the name it clashes with; null when every place has one shape.
 */
export function bodyFieldConflict(names: readonly string[]): { name: string; with: string } | null {
  const shapes = new Map<string, { shape: Shape; by: string }>();
  for (const name of names) {
    const steps = bodyFieldPath(name);
    if (steps === null) continue;
    let place = '';
    for (const [i, step] of steps.entries()) {
      place += 'key' in step ? `.${JSON.stringify(step.key)}` : `[${step.index}]`;
      const next = steps[i + 1];
      const shape: Shape = next === undefined ? 'value' : 'key' in next ? 'object' : 'array';
      const seen = shapes.get(place);
      if (seen && (seen.shape !== shape || shape === 'value')) return { name, with: seen.by };
      if (!seen) shapes.set(place, { shape, by: name });
    }
  }
  return null;
}

/**
 * Puts `value` at `steps` in `body`, making the objects and arrays on the way. An array
 * left with holes (an element whose every field was absent) is closed up by the caller.
 */
export function placeBodyValue(body: Record<string, unknown>, steps: readonly BodyStep[], value: unknown): void {
  let parent: Record<string, unknown> | unknown[] = body;
  for (const [i, step] of steps.entries()) {
    const next = steps[i + 1];
    const at = 'key' in step ? step.key : step.index;
    const container = parent as Record<string | number, unknown>;
    if (next === undefined) {
      container[at] = value;
      return;
    }
    const current = Object.hasOwn(container, at) ? container[at] : undefined;
    const child = current !== null && typeof current === 'object' ? current : 'key' in next ? {} : [];
    container[at] = child;
    parent = child as Record<string, unknown> | unknown[];
  }
}

/** `value` with every array's holes closed up, so an element left out shifts the rest down instead of sending null. */
export function closeBodyHoles(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((_, i) => Object.hasOwn(value, i)).map(closeBodyHoles);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, closeBodyHoles(v)]));
  }
  return value;
}
