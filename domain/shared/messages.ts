/**
 * Message types shared by every aggregate: events as decided, events as recorded,
 * and the three-function decider shape (docs/architecture.md "Habits" 1).
 */

/** An event as a decider emits it: past-tense type plus plain JSON data. */
export type Event<Type extends string = string, Data = Record<string, unknown>> = {
  type: Type;
  data: Data;
};

/** Who or what caused an event; stored as event metadata. */
export type EventMetadata = {
  actor?: { id: string | null; email: string | null; kind: 'user' | 'workload' | 'system' | 'webhook' };
  correlation_id?: string;
  causation_id?: string;
};

/**
 * The metadata of an event the service records on its own (the worker, TTL expiry,
 * retention, ticket mirroring): no person behind it. Frozen, since every such event shares
 * this one object.
 */
export const systemMetadata: EventMetadata = Object.freeze({ actor: Object.freeze({ id: null, email: null, kind: 'system' as const }) });

/** An event read back from the store, with its stream and global position. */
export type RecordedEvent = {
  globalPosition: number;
  streamId: string;
  streamVersion: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recordedAt: string;
};

/** An aggregate as three pure functions (Emmett-style decider). */
export type Decider<Command, DomainEvent extends Event, State> = {
  initialState: () => State;
  evolve: (state: State, event: DomainEvent) => State;
  decide: (command: Command, state: State) => DomainEvent[];
};

/** Rebuilds state from a stream's events; events of other types are ignored by `evolve`. */
export function fold<DomainEvent extends Event, State>(
  decider: Pick<Decider<unknown, DomainEvent, State>, 'initialState' | 'evolve'>,
  events: readonly { type: string; data: unknown }[],
): State {
  return events.reduce((s, e) => decider.evolve(s, e as DomainEvent), decider.initialState());
}

/** Compile-time exhaustiveness check for `switch` over a union. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
