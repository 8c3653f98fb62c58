/**
 * The plan of installing or upgrading a pack (SPEC.md "Integration packs": "side-effect-free
 * plan (install preview, or upgrade preview with drift and blocking runs)"; consent fields
 * `preview_token`, `accepted_overwrite_ids`, `acknowledge_danger`). Pure: the caller reads
 * the installed pack, the custom actions of the pack's names and the active runs.
 *
 * Each action of the pack, and each action of the installed version the new one drops, is
 * one row: `create` (no action has the name), `update` (installed by this pack, untouched
 * since, spec changed), `unchanged`, `overwrite` (the action was edited after this pack
 * installed it, or it never came from this pack: that is drift, and it is replaced only
 * when its id is in `accepted_overwrite_ids`) or `disable` (dropped by the new version).
 * A run blocks the plan when it is queued, running or waiting for approval and its
 * runbook uses an action the plan changes (update, overwrite, disable): swapping an
 * action under a run would run two versions in one run.
 *
 * `preview_token` is the SHA-256 of the plan's canonical JSON, token aside, so it binds
 * the pack file (its sha256), every row, the drift and the blocking runs: when any of
 * them changed since the preview, install and upgrade are refused as stale.
 */
import { isArbitraryTier } from '../custom-actions/decide.ts';
import type { CustomActionSource } from '../custom-actions/commands.ts';
import { storedSpec, type StoredCustomActionSpec } from '../custom-actions/spec.ts';
import { canonicalJson } from '../shared/canonical-json.ts';
import { conflict, unprocessable } from '../shared/errors.ts';
import type { IntegrationPack } from './pack.ts';
import { installStateOf } from './registry.ts';
import type { InstalledAction, IntegrationPackState } from './state.ts';
import { sha256Hex } from '../shared/hash-chain.ts';

/** A custom action as it stands now, read from its stream. */
export type CurrentAction = { id: string; name: string; version: number; source: CustomActionSource; enabled: boolean; spec: StoredCustomActionSpec };
/** A run that has not finished, with the actions its runbook's steps use. */
export type ActiveRun = { run_id: string; runbook_id: string; status: string; actions: string[] };

export type PlanChange = 'create' | 'update' | 'unchanged' | 'overwrite' | 'disable';
export type PlanAction = {
  name: string;
  change: PlanChange;
  /** Null for a create: the id is assigned when the plan is carried out. */
  custom_action_id: string | null;
  current_version: number | null;
  /** The action's version once the plan is carried out. */
  version_after: number;
  risk: string;
  effect_type: string;
  arbitrary: boolean;
};
export type PlanDrift = {
  custom_action_id: string;
  name: string;
  reason: 'edited_locally' | 'not_from_this_pack';
  /** The version this pack installed; null when it never installed this action. */
  installed_version: number | null;
  current_version: number;
};
export type PackPlan = {
  pack_id: string;
  kind: 'install' | 'upgrade';
  from_version: string | null;
  to_version: string;
  sha256: string;
  actions: PlanAction[];
  drift: PlanDrift[];
  blocking_runs: ActiveRun[];
  requires_acknowledge_danger: boolean;
  preview_token: string;
};
export type PlanInput = {
  packId: string;
  pack: IntegrationPack;
  /** The SHA-256 of the pack file, as verified against the index. */
  sha256: string;
  installed: IntegrationPackState;
  /** Custom actions by name, for every name of the pack and of the installed version. */
  current: ReadonlyMap<string, CurrentAction>;
  activeRuns: readonly ActiveRun[];
};
export type Consent = { previewToken: string; acceptedOverwriteIds: readonly string[]; acknowledgeDanger: boolean };

/**
 * The plan for the pack against what is installed. `kind` is what the caller asks for
 * (null for a preview, which plans whichever applies). Errors (409): `pack_installed`
 * (this version is installed, or an install of a pack that has a version installed),
 * `pack_installed_ahead` (a newer version is installed), `pack_not_installed` (an
 * upgrade of a pack with nothing installed).
 */
export function planPack(input: PlanInput, kind: 'install' | 'upgrade' | null): PackPlan {
  const { pack, installed } = input;
  const from = installed.exists ? installed.version : null;
  const state = installStateOf(pack.version, from);
  const params = { pack_id: input.packId, installed_version: from, registry_version: pack.version };
  if (state === 'installed') throw conflict('pack_installed', `${input.packId} ${pack.version} is installed`, params);
  if (state === 'installed_ahead') throw conflict('pack_installed_ahead', `a newer version of ${input.packId} is installed`, params);
  const planned: 'install' | 'upgrade' = state === 'not_installed' ? 'install' : 'upgrade';
  if (kind === 'upgrade' && planned === 'install') throw conflict('pack_not_installed', `${input.packId} is not installed: install it`, params);
  if (kind === 'install' && planned === 'upgrade') throw conflict('pack_installed', `${input.packId} ${from} is installed: upgrade it`, params);

  const installedBy = new Map<string, InstalledAction>(installed.exists ? installed.actions.map((a) => [a.name, a]) : []);
  const actions: PlanAction[] = [];
  const drift: PlanDrift[] = [];
  for (const action of pack.actions) {
    const spec = storedSpec(action.spec);
    const cur = input.current.get(spec.name);
    const facts = { name: spec.name, risk: spec.risk, effect_type: spec.effect_type, arbitrary: isArbitraryTier(spec) };
    if (!cur) {
      actions.push({ ...facts, change: 'create', custom_action_id: null, current_version: null, version_after: 1 });
      continue;
    }
    const mine = installedBy.get(spec.name);
    const same = cur.source === 'pack' && canonicalJson(cur.spec) === canonicalJson(spec);
    const row = { ...facts, custom_action_id: cur.id, current_version: cur.version };
    if (!mine || mine.custom_action_id !== cur.id || mine.version !== cur.version) {
      const reason = !mine || mine.custom_action_id !== cur.id ? 'not_from_this_pack' : 'edited_locally';
      drift.push({
        custom_action_id: cur.id,
        name: spec.name,
        reason,
        installed_version: mine?.custom_action_id === cur.id ? mine.version : null,
        current_version: cur.version,
      });
      actions.push({ ...row, change: 'overwrite', version_after: cur.version + 1 });
    } else {
      actions.push({ ...row, change: same ? 'unchanged' : 'update', version_after: same ? cur.version : cur.version + 1 });
    }
  }
  const kept = new Set(pack.actions.map((a) => a.spec.name));
  for (const old of installedBy.values()) {
    const cur = input.current.get(old.name);
    if (kept.has(old.name) || !cur || cur.id !== old.custom_action_id || !cur.enabled) continue;
    const facts = { name: cur.name, risk: cur.spec.risk, effect_type: cur.spec.effect_type, arbitrary: isArbitraryTier(cur.spec) };
    actions.push({ ...facts, change: 'disable', custom_action_id: cur.id, current_version: cur.version, version_after: cur.version });
  }
  const changed = new Set(actions.filter((a) => a.change === 'update' || a.change === 'overwrite' || a.change === 'disable').map((a) => a.name));
  const blocking_runs = input.activeRuns
    .map((r) => ({ ...r, actions: r.actions.filter((a) => changed.has(a)).sort() }))
    .filter((r) => r.actions.length > 0)
    .sort((a, b) => a.run_id.localeCompare(b.run_id));
  const requires_acknowledge_danger = actions.some((a) => a.arbitrary && a.change !== 'unchanged' && a.change !== 'disable');
  const plan = {
    pack_id: input.packId,
    kind: planned,
    from_version: from,
    to_version: pack.version,
    sha256: input.sha256,
    actions,
    drift,
    blocking_runs,
    requires_acknowledge_danger,
  };
  return { ...plan, preview_token: sha256Hex(canonicalJson(plan)) };
}

/**
 * Whether the consent carries out this plan. Errors, in this order: 409
 * `pack_preview_stale` (the token is not this plan's: preview again), 409
 * `pack_blocked_by_runs` (runs listed in `params.runs`), 409 `pack_overwrite_unaccepted`
 * (drifted ids missing from `accepted_overwrite_ids`, in `params.custom_action_ids`),
 * 422 `pack_danger_unacknowledged` (an arbitrary-tier action without `acknowledge_danger`).
 */
export function checkConsent(plan: PackPlan, consent: Consent): void {
  if (consent.previewToken !== plan.preview_token) {
    throw conflict('pack_preview_stale', 'the pack, the installed actions or the runs changed since the preview: preview again', { pack_id: plan.pack_id });
  }
  if (plan.blocking_runs.length > 0) {
    throw conflict('pack_blocked_by_runs', 'runs that use actions this plan changes have not finished', { runs: plan.blocking_runs.map((r) => r.run_id) });
  }
  const accepted = new Set(consent.acceptedOverwriteIds);
  const missing = plan.drift.map((d) => d.custom_action_id).filter((id) => !accepted.has(id));
  if (missing.length > 0) {
    throw conflict('pack_overwrite_unaccepted', 'the plan overwrites custom actions changed outside this pack: accept them by id', {
      custom_action_ids: missing,
    });
  }
  if (plan.requires_acknowledge_danger && !consent.acknowledgeDanger) {
    throw unprocessable('pack_danger_unacknowledged', 'the pack holds arbitrary-tier actions: install it only with acknowledge_danger: true', {
      actions: plan.actions.filter((a) => a.arbitrary).map((a) => a.name),
    });
  }
}
