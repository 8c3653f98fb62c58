/**
 * Custom action commands (SPEC.md "Custom action (operator-authored)"; domain/custom-actions/):
 * load, decide and append through `decideAndAppend`, each change with its audit entry
 * (`custom_action.create|update|disable|enable`) in the same `appendMany`, so a change
 * and its entry land together or not at all.
 *
 * Names are unique through a claim stream per name (`custom-action-name-<name>`): a
 * create reads it (on every try) and appends `custom_action.name_claimed` at the version
 * it read, in the same `appendMany` as `custom_action.created`. Of two concurrent creates
 * of one name the event store's version check lets exactly one append; the other
 * conflicts, is decided again, finds the name held and is refused with 409
 * `custom_action_exists`. A check of the `custom_actions` read model could not do this:
 * it is projected after the append, so both creates would pass the check and append.
 */
import type { AuditAction, AuditActor } from '../../domain/audit/events.ts';
import type { Actor } from '../../domain/cases/index.ts';
import {
  claimName,
  customActionDecider,
  nameHolderOf,
  type CustomActionCommand,
  type CustomActionEvent,
  type CustomActionSource,
  type CustomActionState,
} from '../../domain/custom-actions/index.ts';
import type { CustomActionSpec } from '../../domain/custom-actions/spec.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { decideAndAppend, type AlsoAppend } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import { actorMetadata } from './cases.ts';

export type CustomActionCommandDeps = { store: EventStore; audit: AuditLog; ids: () => string; now: () => Date };

/** Who changes a custom action: the person, as an event actor and an audit actor, and whether they are a global administrator. */
export type CustomActionAuthorship = { actor: Actor; audit: AuditActor; globalAdmin: boolean };

/** What a save carries besides the spec. */
export type CustomActionSave = { acknowledgeDanger: boolean; source: CustomActionSource };

/** The author facts a custom action decision reads (domain/custom-actions/commands.ts). */
export const authorOf = (who: CustomActionAuthorship) => ({ by: who.actor.email ?? who.actor.userId, globalAdmin: who.globalAdmin });

export type CustomActionResult = { customActionId: string; position: number | null; state: CustomActionState };

const auditActions: Record<CustomActionEvent['type'], AuditAction> = {
  'custom_action.created': 'custom_action.create',
  'custom_action.updated': 'custom_action.update',
  'custom_action.disabled': 'custom_action.disable',
  'custom_action.enabled': 'custom_action.enable',
};

/** One audit entry per decided custom action event, with the action's non-secret facts (never the spec's templates). */
export function customActionAuditWrites(audit: AuditLog, actor: AuditActor, events: readonly CustomActionEvent[]): StreamWrite[] {
  return events.map((e) =>
    audit.write({
      action: auditActions[e.type],
      actor,
      target: { type: 'custom_action', id: e.data.custom_action_id },
      team: null,
      detail:
        e.type === 'custom_action.created' || e.type === 'custom_action.updated'
          ? {
              name: e.data.name,
              version: e.data.version,
              transport: e.data.spec.transport,
              risk: e.data.spec.risk,
              effect_type: e.data.spec.effect_type,
              enabled: e.data.enabled,
              source: e.data.source,
              acknowledged_danger: e.data.acknowledged_danger,
            }
          : { name: e.data.name, version: e.data.version },
    }),
  );
}

export function createCustomActionCommands(deps: CustomActionCommandDeps) {
  const { store } = deps;
  const audited =
    (who: CustomActionAuthorship): AlsoAppend<CustomActionEvent, CustomActionState> =>
    (events) =>
      customActionAuditWrites(deps.audit, who.audit, events);
  const author = authorOf;
  const on = async (
    customActionId: string,
    who: CustomActionAuthorship,
    build: (now: string) => CustomActionCommand | Promise<CustomActionCommand>,
    also: AlsoAppend<CustomActionEvent, CustomActionState> = audited(who),
  ): Promise<CustomActionResult> => {
    const now = deps.now().toISOString();
    const r = await decideAndAppend(store, streams.customAction(customActionId), customActionDecider, () => build(now), actorMetadata(who.actor, 'user'), also);
    return { customActionId, position: r.position, state: r.state };
  };

  return {
    /** Creates version 1 under a fresh id; 409 `custom_action_exists` when the name is held. */
    create: (spec: CustomActionSpec, save: CustomActionSave, who: CustomActionAuthorship): Promise<CustomActionResult> => {
      const customActionId = deps.ids();
      const nameStream = streams.customActionName(spec.name);
      let claimVersion = 0;
      let claimedAt = '';
      const claim: AlsoAppend<CustomActionEvent, CustomActionState> = (events, before) => [
        {
          streamId: nameStream,
          expectedVersion: claimVersion,
          events: [{ ...claimName(spec.name, customActionId, claimedAt), metadata: actorMetadata(who.actor, 'user') }],
        } satisfies StreamWrite,
        ...audited(who)(events, before),
      ];
      return on(
        customActionId,
        who,
        async (now) => {
          const held = await store.readStream(nameStream);
          claimVersion = held.length;
          claimedAt = now;
          return { type: 'create', customActionId, spec, nameHolder: nameHolderOf(held), ...save, author: author(who), now };
        },
        claim,
      );
    },
    /** Replaces the whole spec as the next version (domain/custom-actions/decide.ts). */
    update: (customActionId: string, spec: CustomActionSpec, save: CustomActionSave, who: CustomActionAuthorship) =>
      on(customActionId, who, (now) => ({ type: 'update', customActionId, spec, ...save, author: author(who), now })),
    disable: (customActionId: string, who: CustomActionAuthorship) =>
      on(customActionId, who, (now) => ({ type: 'disable', customActionId, author: author(who), now })),
    enable: (customActionId: string, who: CustomActionAuthorship) =>
      on(customActionId, who, (now) => ({ type: 'enable', customActionId, author: author(who), now })),
  };
}

export type CustomActionCommands = ReturnType<typeof createCustomActionCommands>;
