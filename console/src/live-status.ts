/**
 * The live connection's status as React state, for the header's indicator. Read with
 * `useSyncExternalStore` because the socket's `hello` can arrive after a component has
 * rendered and before its effects subscribe: state copied at render and a listener added
 * in an effect would miss that change and show "Connecting…" for the rest of the session.
 */
import { useCallback, useSyncExternalStore } from 'react';

export type LiveStatus = 'connecting' | 'open' | 'closed';

/** Anything with a status and change listeners (the tab's LiveConnection). */
export type StatusSource = {
  readonly status: LiveStatus;
  onStatus: (listener: (status: LiveStatus) => void) => () => void;
};

/** `source`'s current status; the component renders again whenever it changes. */
export function useStatusOf(source: StatusSource): LiveStatus {
  const subscribe = useCallback((onChange: () => void) => source.onStatus(onChange), [source]);
  return useSyncExternalStore(subscribe, () => source.status);
}
