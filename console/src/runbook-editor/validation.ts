/**
 * `useValidation`: the server's judgement of the draft (`POST /runbooks/validate` ->
 * `{errors: [{loc, msg}]}`), asked 400 ms after the author stops typing, each problem
 * placed at its line (yaml-loc.ts `placed`). Answers to an older text are dropped.
 */
import { useEffect, useRef, useState } from 'react';
import { answer, client } from '../api.ts';
import { type PlacedProblem, placed } from '../yaml-loc.ts';

export type Validation = { problems: PlacedProblem[]; checking: boolean; error: Error | null; checkedText: string | null };

const DEBOUNCE_MS = 400;

export function useValidation(text: string): Validation {
  const [state, setState] = useState<Validation>({ problems: [], checking: true, error: null, checkedText: null });
  const latest = useRef(text);
  latest.current = text;
  useEffect(() => {
    setState((previous) => ({ ...previous, checking: true }));
    const timer = setTimeout(async () => {
      try {
        const { errors } = answer(await client.POST('/runbooks/validate', { body: { yaml_text: text } }));
        if (latest.current === text) setState({ problems: placed(text, errors), checking: false, error: null, checkedText: text });
      } catch (failure) {
        if (latest.current === text) setState({ problems: [], checking: false, error: failure as Error, checkedText: null });
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return state;
}
