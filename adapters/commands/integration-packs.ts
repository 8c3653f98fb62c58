/**
 * Integration pack commands (SPEC.md "Integration packs": preview, install, upgrade;
 * domain/integration-packs/). A preview reads and plans, writing nothing. An install or
 * upgrade reads again, plans again, decides the pack's event against that plan and the
 * consent, decides each custom action change (created, updated, disabled; `source:
 * 'pack'`, so managed effect types are allowed and the arbitrary tier still needs a
 * global administrator), and appends all of it in one `appendMany` with the versions it
 * read: the pack stream, every custom action stream, the name claims of created
 * actions, and an audit entry for the pack and for each action change. So a pack is
 * installed whole or not at all, and a change that lands between the read and the append
 * (an action edited, a run queued) is a version conflict: the whole command is decided
 * again, and refused as `pack_preview_stale` when the plan it now makes is not the one
 * previewed.
 */
import { claimName, customActionDecider, nameHolderOf, type CustomActionCommand, type CustomActionEvent } from '../../domain/custom-actions/index.ts';
import type { IntegrationPack } from '../../domain/integration-packs/pack.ts';
import { planPack, type ActiveRun, type Consent, type CurrentAction, type PackPlan } from '../../domain/integration-packs/plan.ts';
import { integrationPackDecider, type InstalledAction, type IntegrationPackState } from '../../domain/integration-packs/index.ts';
import type { RunQueued } from '../../domain/runs/events.ts';
import { fold, type EventMetadata, type RecordedEvent } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { retryOnConflict } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import { actorMetadata } from './cases.ts';
import { authorOf, customActionAuditWrites, type CustomActionAuthorship } from './custom-actions.ts';

export type IntegrationPackCommandDeps = {
  store: EventStore;
  audit: AuditLog;
  ids: () => string;
  now: () => Date;
  /** Runs not finished yet (projections/runs/runs.queries.ts `unfinishedRuns`). */
  unfinishedRuns: () => Promise<{ id: string; runbook_id: string; status: string }[]>;
};

/** The verified pack to plan with: its registry id, document and file checksum. */
export type PackSource = { packId: string; pack: IntegrationPack; sha256: string };

export type PackInstallResult = { plan: PackPlan; position: number | null; actions: InstalledAction[] };

/** A custom action read with its stream, for deciding and for the expected version. */
type ReadAction = CurrentAction & { history: RecordedEvent[] };
type Reads = {
  packHistory: RecordedEvent[];
  installed: IntegrationPackState;
  actions: Map<string, ReadAction>;
  claims: Map<string, number>;
  activeRuns: ActiveRun[];
};

export function createIntegrationPackCommands(deps: IntegrationPackCommandDeps) {
  const { store } = deps;

  /** The custom action holding `name` now, with its stream; null when the name is free (with the claim stream's length). */
  const readAction = async (name: string): Promise<{ action: ReadAction | null; claimLength: number }> => {
    const claim = await store.readStream(streams.customActionName(name));
    const id = nameHolderOf(claim);
    if (id === null) return { action: null, claimLength: claim.length };
    const history = await store.readStream(streams.customAction(id));
    const state = fold(customActionDecider, history);
    if (!state.exists) return { action: null, claimLength: claim.length };
    return { action: { id, name, version: state.version, source: state.source, enabled: state.enabled, spec: state.spec, history }, claimLength: claim.length };
  };

  const readRuns = async (): Promise<ActiveRun[]> =>
    Promise.all(
      (await deps.unfinishedRuns()).map(async (run) => {
        const [queued] = await store.readStream(streams.run(run.id));
        const steps = queued?.type === 'run.queued' ? (queued.data as RunQueued['data']).runbook.steps : [];
        const actions = [...new Set(steps.map((s) => s.action).filter((a): a is string => a !== null))];
        return { run_id: run.id, runbook_id: run.runbook_id, status: run.status, actions };
      }),
    );

  const read = async (source: PackSource): Promise<Reads> => {
    const packHistory = await store.readStream(streams.integrationPack(source.packId));
    const installed = fold(integrationPackDecider, packHistory);
    const names = new Set([...source.pack.actions.map((a) => a.spec.name), ...(installed.exists ? installed.actions.map((a) => a.name) : [])]);
    const actions = new Map<string, ReadAction>();
    const claims = new Map<string, number>();
    for (const name of names) {
      const { action, claimLength } = await readAction(name);
      if (action) actions.set(name, action);
      else claims.set(name, claimLength);
    }
    return { packHistory, installed, actions, claims, activeRuns: await readRuns() };
  };

  const plan = (source: PackSource, reads: Reads, kind: 'install' | 'upgrade' | null): PackPlan =>
    planPack(
      { packId: source.packId, pack: source.pack, sha256: source.sha256, installed: reads.installed, current: reads.actions, activeRuns: reads.activeRuns },
      kind,
    );

  const carryOut = (kind: 'install' | 'upgrade', source: PackSource, consent: Consent, who: CustomActionAuthorship): Promise<PackInstallResult> =>
    retryOnConflict(async () => {
      const reads = await read(source);
      const planned = plan(source, reads, kind);
      const now = deps.now().toISOString();
      const metadata: EventMetadata = actorMetadata(who.actor, 'user');
      const createdIds = new Map(planned.actions.filter((a) => a.change === 'create').map((a) => [a.name, deps.ids()]));
      const installedActions: InstalledAction[] = source.pack.actions.map((a) => {
        const row = planned.actions.find((r) => r.name === a.spec.name);
        const id = row?.custom_action_id ?? createdIds.get(a.spec.name) ?? '';
        return { name: a.spec.name, custom_action_id: id, version: row?.version_after ?? 1 };
      });
      const packEvents = integrationPackDecider.decide(
        { type: kind, packId: source.packId, plan: planned, consent, actions: installedActions, by: authorOf(who).by, now },
        reads.installed,
      );
      const writes: StreamWrite[] = [
        { streamId: streams.integrationPack(source.packId), expectedVersion: reads.packHistory.length, events: packEvents.map((e) => ({ ...e, metadata })) },
        ...customActionWrites(deps.audit, source, planned, reads, createdIds, consent, who, now, metadata),
        deps.audit.write({
          action: kind === 'install' ? 'integration_pack.install' : 'integration_pack.upgrade',
          actor: who.audit,
          target: { type: 'integration_pack', id: source.packId },
          team: null,
          detail: packAuditDetail(planned),
        }),
      ];
      const result = await store.appendMany(writes);
      return { plan: planned, position: result.lastPosition, actions: installedActions };
    });

  return {
    /** The plan of installing or upgrading the pack now (whichever applies); writes nothing. */
    preview: async (source: PackSource): Promise<PackPlan> => plan(source, await read(source), null),
    /** Installs a pack not installed yet, as the previewed plan says (domain/integration-packs/decide.ts). */
    install: (source: PackSource, consent: Consent, who: CustomActionAuthorship) => carryOut('install', source, consent, who),
    /** Upgrades an installed pack to the registry's newer version, as the previewed plan says. */
    upgrade: (source: PackSource, consent: Consent, who: CustomActionAuthorship) => carryOut('upgrade', source, consent, who),
  };
}

/** The custom action writes of a plan: each change decided against the action's stream as read, its audit entries beside it. */
function customActionWrites(
  audit: AuditLog,
  source: PackSource,
  planned: PackPlan,
  reads: Reads,
  createdIds: ReadonlyMap<string, string>,
  consent: Consent,
  who: CustomActionAuthorship,
  now: string,
  metadata: EventMetadata,
): StreamWrite[] {
  const author = authorOf(who);
  const specs = new Map(source.pack.actions.map((a) => [a.spec.name, a.spec]));
  const writes: StreamWrite[] = [];
  for (const row of planned.actions) {
    const spec = specs.get(row.name);
    const current = reads.actions.get(row.name);
    let command: CustomActionCommand | null = null;
    let customActionId = row.custom_action_id;
    if (row.change === 'create' && spec) {
      customActionId = createdIds.get(row.name) ?? null;
      if (customActionId === null) continue;
      command = { type: 'create', customActionId, spec, nameHolder: null, acknowledgeDanger: consent.acknowledgeDanger, source: 'pack', author, now };
      writes.push({
        streamId: streams.customActionName(row.name),
        expectedVersion: reads.claims.get(row.name) ?? 0,
        events: [{ ...claimName(row.name, customActionId, now), metadata }],
      });
    } else if ((row.change === 'update' || row.change === 'overwrite') && spec && customActionId) {
      command = { type: 'update', customActionId, spec, acknowledgeDanger: consent.acknowledgeDanger, source: 'pack', author, now };
    } else if (row.change === 'disable' && customActionId) {
      command = { type: 'disable', customActionId, author, now };
    }
    if (command === null || customActionId === null) continue;
    const history = current?.history ?? [];
    const events: CustomActionEvent[] = customActionDecider.decide(command, fold(customActionDecider, history));
    if (events.length === 0) continue;
    writes.push({ streamId: streams.customAction(customActionId), expectedVersion: history.length, events: events.map((e) => ({ ...e, metadata })) });
    writes.push(...customActionAuditWrites(audit, who.audit, events));
  }
  return writes;
}

function packAuditDetail(plan: PackPlan): Record<string, unknown> {
  return {
    version: plan.to_version,
    from_version: plan.from_version,
    sha256: plan.sha256,
    actions: plan.actions.map((a) => ({ name: a.name, change: a.change, custom_action_id: a.custom_action_id, version_after: a.version_after })),
    overwritten_ids: plan.drift.map((d) => d.custom_action_id),
  };
}

export type IntegrationPackCommands = ReturnType<typeof createIntegrationPackCommands>;
