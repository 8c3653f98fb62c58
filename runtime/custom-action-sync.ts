/**
 * Keeps the action registry's custom actions equal to the `custom_actions` read model
 * (docs/architecture.md "Run path"): every process (API and worker) loads the enabled
 * ones on start, again when its projector applies a `custom_action.*` event, and every
 * `runbookRefreshMs` as a backstop. Each refresh replaces the registry's snapshot whole;
 * refreshes run one at a time, and one asked for while another runs runs after it.
 * A row whose spec no longer passes the schema is left out (and reported), never fatal.
 */
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import { customActionDefinition, type CustomActionDeps } from '../adapters/actions/custom-action.ts';
import type { ActionDefinition } from '../adapters/actions/action.ts';
import type { ActionRegistry } from '../adapters/action-registry/registry.ts';
import { customActionEventTypes } from '../domain/custom-actions/events.ts';
import { customActionSpecSchema, type StoredCustomActionSpec } from '../domain/custom-actions/spec.ts';
import type { Database } from '../projections/database.ts';
import { listCustomActions } from '../projections/custom-actions/custom-actions.queries.ts';

export type CustomActionSync = {
  /** Reloads now; resolves when the registry holds what the read model held. */
  refresh: () => Promise<void>;
  /** Whether a batch of applied events changes custom actions. */
  touches: (applied: readonly { type: string }[]) => boolean;
  /** Waits for the refresh under way, if any. */
  idle: () => Promise<void>;
};

export function createCustomActionSync(deps: {
  db: Kysely<Database>;
  actions: ActionRegistry;
  actionDeps: CustomActionDeps;
  onInvalid: (name: string, issues: string) => void;
}): CustomActionSync {
  let running: Promise<void> = Promise.resolve();
  const load = async () => {
    const rows = await listCustomActions(deps.db);
    const enabled: ActionDefinition[] = [];
    const disabled: string[] = [];
    for (const row of rows) {
      if (!row.enabled) {
        disabled.push(row.name);
        continue;
      }
      const parsed = v.safeParse(customActionSpecSchema, row.spec);
      if (!parsed.success) {
        deps.onInvalid(row.name, parsed.issues.map((i) => i.message).join('; '));
        continue;
      }
      const { enabled: _enabled, ...spec } = parsed.output;
      enabled.push(customActionDefinition(spec as StoredCustomActionSpec, deps.actionDeps));
    }
    deps.actions.setCustomActions(enabled, disabled);
  };
  return {
    refresh: () => {
      running = running.catch(() => undefined).then(load);
      return running;
    },
    touches: (applied) => applied.some((e) => customActionEventTypes.has(e.type)),
    idle: () => running.catch(() => undefined),
  };
}
