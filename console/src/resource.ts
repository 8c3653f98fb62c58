/**
 * `useResource`: one API read a page shows, with its loading and error states, read again
 * when a live frame says it changed (and after a reconnect). Bursts of frames (a run's
 * steps) are coalesced into one read per 150 ms. `initial`, when it gives data (a first
 * read that already answered, first-reads.ts), is shown on the first render and not read
 * again on mount.
 */
import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { type LiveFrame, useLiveFrames } from './live.tsx';

export type Resource<T> = { data: T | null; error: Error | null; loading: boolean; reload: () => void };

export function useResource<T>(
  load: () => Promise<T>,
  deps: DependencyList,
  changedBy: (frame: LiveFrame) => boolean = () => false,
  initial: () => T | undefined = () => undefined,
): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: Error | null; loading: boolean }>(() => {
    const data = initial();
    return data === undefined ? { data: null, error: null, loading: true } : { data, error: null, loading: false };
  });
  const holdsInitial = useRef(!state.loading);
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latestLoad = useRef(load);
  latestLoad.current = load;
  const read = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    latestLoad.current().then(
      (data) => {
        if (mine === generation.current) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (mine === generation.current) setState((previous) => ({ data: previous.data, error: error as Error, loading: false }));
      },
    );
  }, []);
  const readOnChange = () => {
    if (holdsInitial.current) holdsInitial.current = false;
    else read();
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when `load` reads something else
  useEffect(readOnChange, deps);
  useLiveFrames((frame) => {
    if (frame.type !== 'live.reconnected' && !changedBy(frame)) return;
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      read();
    }, 150);
  });
  return { ...state, reload: read };
}
