/**
 * `useValidation`: the server's judgement of the draft (`POST /runbooks/validate` ->
 * `{errors: [{loc, msg}]}`), asked 400 ms after the author stops typing, each problem
 * placed at its line (draft.ts `locRange`). Answers to an older text are dropped.
 */
import { useEffect, useRef, useState } from 'react';
import { answer, client } from '../api.ts';
import type { ValidationProblem } from '../errors.ts';
import { lineOf, locRange } from './draft.ts';

/** A problem of the draft: the server's `{loc, msg}`, where it sits, and on which line. */
export type PlacedProblem = ValidationProblem & { from: number; to: number; line: number };

/** `problems` placed in `text`. */
export const placed = (text: string, problems: readonly ValidationProblem[]): PlacedProblem[] =>
  problems.map((problem) => {
    const range = locRange(text, problem.loc);
    return { ...problem, ...range, line: lineOf(text, range.from) };
  });

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
