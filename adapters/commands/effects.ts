/**
 * Effect commands (SPEC.md "Managed containment effects"; domain/effects/): load, decide
 * and append one effect's stream through `decideAndAppend`, as the system (the worker or a
 * managed action acts for the policy). Every decision of the Effect aggregate is
 * idempotent, so a command repeated after a crash lands once.
 */
import { effectDecider, type EffectCommand, type EffectEvent, type EffectState } from '../../domain/effects/index.ts';
import { fold, systemMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import type { StreamState } from './stream-states.ts';

/** An effect's state with its stream version, as read or as a decision left it: the `known` of the next decision. */
export type KnownEffect = StreamState<EffectState>;

export type EffectResult = KnownEffect & { position: number | null; decided: number };

export function createEffectCommands(deps: { store: EventStore }) {
  /** The effect's state now, with its version (a few events: read whole, not kept between commands). */
  const load = async (effectId: string): Promise<KnownEffect> => {
    const history = await deps.store.readStream(streams.effect(effectId));
    return { state: fold(effectDecider, history), version: history.length };
  };
  return {
    /**
     * Decides `command` on its effect's stream, with what `also` adds for the decided events
     * (an audit entry) in the same append; resolves with the state after it and the
     * position written (null: nothing decided). `known`: the effect as the caller's previous
     * read or decision left it, decided against without a read (aggregate.ts).
     */
    decide: async (command: EffectCommand, also?: (events: EffectEvent[]) => StreamWrite[], known?: KnownEffect): Promise<EffectResult> => {
      const r = await decideAndAppend(deps.store, streams.effect(command.effectId), effectDecider, () => command, systemMetadata, also, known);
      return { position: r.position, state: r.state, version: r.version, decided: r.events.length };
    },
    load,
    /** The effect's state now. */
    read: async (effectId: string): Promise<EffectState> => (await load(effectId)).state,
  };
}

export type EffectCommands = ReturnType<typeof createEffectCommands>;
