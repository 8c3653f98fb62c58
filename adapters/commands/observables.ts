/**
 * Observable commands (SPEC.md "Cases": POST and DELETE /cases/<id>/observables).
 * The stream of (case, type, normalized value) de-duplicates: a second add decides
 * nothing and answers the observable already there.
 */
import { hash } from 'node:crypto';
import type { Actor } from '../../domain/cases/index.ts';
import { observableDecider, type ObservableCommand } from '../../domain/observables/index.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import { actorMetadata } from './cases.ts';

export type ObservableCommandDeps = { store: EventStore; ids: () => string; now: () => Date };

/** The stream of one (case, type, normalized value). */
export const observableStreamOf = (caseId: string, type: string, normalized: string) =>
  streams.observable(hash('sha256', `${caseId}\u0000${type}\u0000${normalized}`, 'hex').slice(0, 40));

export function createObservableCommands(deps: ObservableCommandDeps) {
  return {
    /** Adds (type, value) to the case unless present; answers the observable's id and whether it was already there. */
    add: async (caseId: string, o: { type: string; value: string; normalized: string }, actor: Actor) => {
      const candidate = deps.ids();
      const now = deps.now().toISOString();
      const r = await decideAndAppend(
        deps.store,
        observableStreamOf(caseId, o.type, o.normalized),
        observableDecider,
        (): ObservableCommand => ({
          type: 'add',
          observableId: candidate,
          caseId,
          kind: o.type,
          value: o.value,
          normalized: o.normalized,
          by: actor.email ?? actor.userId,
          now,
        }),
        actorMetadata(actor, 'user'),
      );
      const id = r.state.present ? r.state.observableId : candidate;
      return { observableId: id, deduplicated: r.events.length === 0, position: r.position };
    },
    remove: async (caseId: string, o: { id: string; type: string; normalized: string }, actor: Actor) => {
      const now = deps.now().toISOString();
      const r = await decideAndAppend(
        deps.store,
        observableStreamOf(caseId, o.type, o.normalized),
        observableDecider,
        (): ObservableCommand => ({ type: 'remove', observableId: o.id, caseId, by: actor.email ?? actor.userId, now }),
        actorMetadata(actor, 'user'),
      );
      return { position: r.position };
    },
  };
}

export type ObservableCommands = ReturnType<typeof createObservableCommands>;
