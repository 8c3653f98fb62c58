/**
 * Given-when-then for deciders (issue 20): given the events a stream holds, when a
 * command is decided, then these events come out, or this domain error is thrown.
 * Runs the decider's own `initialState`, `evolve` and `decide`, nothing else, on
 * deep-frozen states and events: a decider that changes the state or event it is given
 * throws here. Kept stream states rely on that (adapters/commands/stream-states.ts).
 *
 * @example
 * given(caseDecider, [opened]).when(ack).then([acknowledged]);
 * given(caseDecider, [opened, closed]).when(ack).thenThrows('case_closed', 422);
 */
import { expect } from 'vitest';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Decider, Event } from '../../domain/shared/messages.ts';

export type Scenario<C, E extends Event, S> = {
  /** The state the given events fold to. */
  state: S;
  when: (command: C) => Outcome<E, S>;
};

export type Outcome<E extends Event, S> = {
  /** Asserts the decided events equal `expected` (deep, in order); returns them and the state after. */
  then: (expected: E[]) => { events: E[]; state: S };
  /** Asserts the decided events match `expected` (partial objects, in order, same count). */
  thenMatch: (expected: unknown[]) => { events: E[]; state: S };
  /** Asserts the command is refused with a DomainError of `code` (and `status` when given). */
  thenThrows: (code: string, status?: number) => DomainError;
};

/** `value`, frozen all the way down (a copy of the caller's data, so fixtures stay as they are). */
function frozen<T>(value: T): T {
  const freeze = (v: unknown): unknown => {
    if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
      for (const inner of Object.values(v)) freeze(inner);
      Object.freeze(v);
    }
    return v;
  };
  return freeze(structuredClone(value)) as T;
}

export function given<C, E extends Event, S>(decider: Decider<C, E, S>, events: readonly E[]): Scenario<C, E, S> {
  const evolve = (state: S, event: E): S => frozen(decider.evolve(state, frozen(event)));
  const state = events.reduce(evolve, frozen(decider.initialState()));
  return {
    state,
    when: (command) => {
      const decide = () => decider.decide(frozen(command), state);
      const settle = (events: E[]) => ({ events, state: events.reduce(evolve, state) });
      return {
        // biome-ignore lint/suspicious/noThenProperty: an outcome is asserted, never awaited; `then` reads as given-when-then.
        then: (expected) => {
          const events = decide();
          expect(events).toEqual(expected);
          return settle(events);
        },
        thenMatch: (expected) => {
          const events = decide();
          expect(events).toHaveLength(expected.length);
          expect(events).toMatchObject(expected);
          return settle(events);
        },
        thenThrows: (code, status) => {
          let thrown: unknown = null;
          try {
            decide();
          } catch (error) {
            thrown = error;
          }
          expect(thrown, `expected ${code}, but the command was decided`).toBeInstanceOf(DomainError);
          const error = thrown as DomainError;
          expect(error.code).toBe(code);
          if (status !== undefined) expect(error.status).toBe(status);
          return error;
        },
      };
    },
  };
}
