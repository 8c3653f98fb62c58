/**
 * Keyboard shortcut matching, pure (tests/unit/console/shortcut-keys.test.ts). A binding is
 * one key (`a`, `?`) or two keys pressed one after the other (`g a`, within a second); keys
 * are `KeyboardEvent.key` values. A key pressed while typing in a field, or with Ctrl, Alt
 * or Meta held, is never a shortcut, so browser and screen-reader keys keep working.
 */

/** How long the first key of a two-key binding waits for the second, ms. */
export const SEQUENCE_MS = 1000;

/** What a key press does given the keys already pending: run `binding`, wait for more (`pending`), or nothing. */
export type KeyOutcome = { run: string | null; pending: string[] };

/** The outcome of `key` after `pending` among `bindings`: a binding it completes, or the pending keys it starts or continues. */
export function matchKey(pending: readonly string[], key: string, bindings: readonly string[]): KeyOutcome {
  const typed = [...pending, key];
  const exact = bindings.find((binding) => binding === typed.join(' '));
  if (exact) return { run: exact, pending: [] };
  if (bindings.some((binding) => binding.startsWith(`${typed.join(' ')} `))) return { run: null, pending: typed };
  // A key that continues nothing may start something afresh.
  if (pending.length > 0) return matchKey([], key, bindings);
  return { run: null, pending: [] };
}

/** Whether a key press should be left alone: typed into a field, or with a modifier held (Shift is part of keys such as `?`). */
export function ignoredKeyPress(event: { ctrlKey: boolean; altKey: boolean; metaKey: boolean; target: EventTarget | null }): boolean {
  if (event.ctrlKey || event.altKey || event.metaKey) return true;
  const target = event.target as { tagName?: string; isContentEditable?: boolean } | null;
  const tag = target?.tagName?.toLowerCase();
  return tag === 'input' || tag === 'textarea' || tag === 'select' || target?.isContentEditable === true;
}
