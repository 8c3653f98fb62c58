/**
 * Effect commands (SPEC.md "Managed containment effects"; domain/effects/): load, decide
 * and append one effect's stream through `decideAndAppend`, as the system (the worker or a
 * managed action acts for the policy). Every decision of the Effect aggregate is
 * idempotent, so a command repeated after a crash lands once.
 */
import { effectDecider, type EffectCommand, type EffectEvent, type EffectState } from '../../domain/effects/index.ts';
import { fold } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';

export type EffectResult = { position: number | null; state: EffectState; decided: number };

export function createEffectCommands(deps: { store: EventStore }) {
  return {
    /**
     * Decides `command` on its effect's stream, with what `also` adds for the decided events
     * (an audit entry) in the same append; resolves with the state after it and the
     * position written (null: nothing decided).
     */
    decide: async (command: EffectCommand, also?: (events: EffectEvent[]) => StreamWrite[]): Promise<EffectResult> => {
      const r = await decideAndAppend(
        deps.store,
        streams.effect(command.effectId),
        effectDecider,
        () => command,
        { actor: { id: null, email: null, kind: 'system' } },
        also,
      );
      return { position: r.position, state: r.state, decided: r.events.length };
    },
    /** The effect's state now. */
    read: async (effectId: string): Promise<EffectState> => {
      const history = await deps.store.readStream(streams.effect(effectId));
      return fold(effectDecider, history);
    },
  };
}

export type EffectCommands = ReturnType<typeof createEffectCommands>;
