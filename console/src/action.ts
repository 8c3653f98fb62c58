/**
 * `useAction`: one write a control makes (a POST, PATCH or DELETE), with `busy` while it
 * runs, to disable the control, and `error` when it failed, to show in words. Every write
 * control of the console goes through it.
 */
import { useState } from 'react';

export type Action = { busy: boolean; error: Error | null; run: <T>(request: () => Promise<T>, done: (answer: T) => void) => Promise<void> };

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const run = async <T>(request: () => Promise<T>, done: (answer: T) => void) => {
    setBusy(true);
    setError(null);
    try {
      done(await request());
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
