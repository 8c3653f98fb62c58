/**
 * Keyboard shortcuts for the analyst's loop (docs/console.md "Keyboard shortcuts"): pages
 * register theirs with `useShortcut` while they are shown; `?` opens a help overlay
 * listing every shortcut active now; Escape closes it. Matching rules: shortcut-keys.ts.
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { ignoredKeyPress, matchKey, SEQUENCE_MS } from './shortcut-keys.ts';

type Shortcut = { keys: string; description: string; run: () => void };
type Registry = { add: (shortcut: Shortcut) => () => void };

const ShortcutContext = createContext<Registry | null>(null);

export function ShortcutProvider({ children }: { children: ReactNode }) {
  const shortcuts = useRef(new Map<symbol, Shortcut>());
  const [version, setVersion] = useState(0);
  const [helpOpen, setHelpOpen] = useState(false);
  const helpShown = useRef(false);
  helpShown.current = helpOpen;
  const add = useCallback((shortcut: Shortcut) => {
    const id = Symbol(shortcut.keys);
    shortcuts.current.set(id, shortcut);
    setVersion((v) => v + 1);
    return () => {
      shortcuts.current.delete(id);
      setVersion((v) => v + 1);
    };
  }, []);
  const registry = useMemo(() => ({ add }), [add]);

  useEffect(() => {
    let pending: string[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onKey = (event: KeyboardEvent) => {
      if (ignoredKeyPress(event)) return;
      if (event.key === 'Escape') return setHelpOpen(false);
      // Behind the open help, only `?` (which closes it) does anything.
      const active = helpShown.current ? [] : [...shortcuts.current.values()];
      const outcome = matchKey(pending, event.key, ['?', ...active.map((s) => s.keys)]);
      pending = outcome.pending;
      if (timer) clearTimeout(timer);
      timer = pending.length > 0 ? setTimeout(() => (pending = []), SEQUENCE_MS) : null;
      if (outcome.run === null) return;
      event.preventDefault();
      if (outcome.run === '?') return setHelpOpen((open) => !open);
      // The page registered last (the innermost) wins a key two pages share.
      active
        .filter((s) => s.keys === outcome.run)
        .at(-1)
        ?.run();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (timer) clearTimeout(timer);
    };
  }, []);

  return (
    <ShortcutContext.Provider value={registry}>
      {children}
      {helpOpen && <ShortcutHelp key={version} shortcuts={[...shortcuts.current.values()]} onClose={() => setHelpOpen(false)} />}
    </ShortcutContext.Provider>
  );
}

/** Binds `keys` (`a`, or `g a`) to `run` while the calling component is shown and `enabled`. */
export function useShortcut(keys: string, description: string, run: () => void, enabled = true) {
  const registry = useContext(ShortcutContext);
  const latest = useRef(run);
  latest.current = run;
  useEffect(() => {
    if (!registry || !enabled) return;
    return registry.add({ keys, description, run: () => latest.current() });
  }, [registry, keys, description, enabled]);
}

/** The shortcuts active on this page, in a modal dialog that takes the focus. */
function ShortcutHelp({ shortcuts, onClose }: { shortcuts: Shortcut[]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const open = dialog.current;
    open?.showModal();
    return () => open?.close();
  }, []);
  const rows = [{ keys: '?', description: 'Show or hide this help' }, ...shortcuts];
  const unique = rows.filter((row, i) => rows.findIndex((other) => other.keys === row.keys) === i);
  return (
    <dialog ref={dialog} className="shortcut-help" aria-labelledby="shortcut-help-title" onClose={onClose}>
      <h2 id="shortcut-help-title">Keyboard shortcuts</h2>
      <table aria-label="Keyboard shortcuts on this page">
        <tbody>
          {unique.map((row) => (
            <tr key={row.keys}>
              <th scope="row">
                {row.keys.split(' ').map((key, i) => (
                  <span key={`${key}-${i === 0 ? 'first' : 'then'}`}>
                    {i > 0 && ' then '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </th>
              <td>{row.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
