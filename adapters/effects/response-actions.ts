/**
 * The twelve managed containment actions, `response.*` (SPEC.md "Managed containment
 * actions", "Managed containment effects"; the identity three are ours: docs/containment.md). Each normalizes its
 * target, checks the response policy in force and delegates the vendor call to the
 * action bound for its `(effect_type, target_type)`, run through the registry's own
 * implementation: nothing here speaks a vendor's API.
 *
 * - block (`ip_block`, `domain_block`, `host_isolate`, `identity_disable`): a policy refusal
 *   (domain/effects/request.ts: `target_invalid`, `target_protected`, `ttl_missing`,
 *   `ttl_out_of_policy`, ...) fails the step before any vendor call and creates no effect.
 *   Otherwise an effect is requested with the binding frozen; an adapter refusal
 *   (domain/effects/binding.ts) leaves it `degraded` and fails the step, still before any
 *   vendor call. Then the bound block action runs with the effect's idempotency key, and
 *   its answer is the effect's verdict (domain/effects/managed.ts `applyVerdict`): `active`
 *   until now + TTL, its expiry job reversing it (runtime/worker/effect-expiry.ts). Output
 *   `{target, enforced, enforcement_performed, effect_id}`.
 * - unblock (`ip_unblock`, `domain_unblock`, `host_release`, `identity_enable`): releases every unresolved
 *   effect on the target early through its frozen binding (adapters/effects/reversal.ts);
 *   with none, calls the bound unblock action directly (already gone is success).
 * - status (`ip_status`, `domain_status`, `host_status`, `identity_status`): the bound read, with the handle
 *   of the newest unresolved effect on the target by the same adapter that recorded one; `enforced` by the
 *   read-back rule, `enforcement_performed` always false, `state` `enforced` or
 *   `not_enforced`. A read answering that the object is gone is a successful read.
 *
 * Idempotent per attempt, and across the attempts of one delivery: an effect's id is
 * derived from the call's delivery id (run, step, goto pass, `for_each` item; the same for
 * a retry and for the next attempt a crash leads to) and the try, so a step run again after
 * a crash finds its own effect: a pending one is called again with the same idempotency
 * key, an applied one is answered as it stands, and only a failed or degraded one leads to
 * a new try. Each `for_each` item is its own delivery, hence its own effect. The effect's events are in the store before the vendor
 * is called, so a crash mid-call leaves a visible `pending` effect, never a silent block.
 *
 * `gate` (ActionDefinition): a block no automatic grant covers waits for a person before
 * its step starts (a gate with reason `response_policy`); one the policy or the adapter
 * refuses does not wait, it fails at once. `execute` decides again with the policy in
 * force at that moment, before any effect is requested: a refusal (a target protected
 * since, a TTL now out of policy) fails the step; a request that needs an approval the
 * step does not hold for exactly this request (`gateOf`) throws ApprovalRequired, and the
 * step goes back to a gate instead of applying.
 */
import type * as v from 'valibot';
import { v5 as uuidV5 } from 'uuid';
import { snapshotDigest, snapshotOf, type AdapterCall, type AdapterRole, type ParametersSnapshot, type Vocabulary } from '../../domain/effects/binding.ts';
import { applyVerdict, managedActions, ownershipPlan, type ApplyVerdict, type ManagedAction } from '../../domain/effects/managed.ts';
import { evaluateRequest, type EffectRefusal } from '../../domain/effects/request.ts';
import type { EffectState } from '../../domain/effects/state.ts';
import type { ResponsePolicy } from '../../domain/response-policy/policy.ts';
import { RISK_GATE_ROLES } from '../../domain/runs/index.ts';
import { normalizeTarget, type TargetType } from '../../domain/response-policy/targets.ts';
import { systemActor } from '../commands/audit.ts';
import type { EffectCommands, KnownEffect } from '../commands/effects.ts';
import { callBoundAction, readBound, readBoundState, resolveBound } from './bound-actions.ts';
import type { EffectReverser } from './reversal.ts';
import {
  ActionFailure,
  ApprovalRequired,
  approvalCovers,
  requestDigest,
  type ActionContext,
  type ActionDefinition,
  type ActionGate,
  type ResolvedConnection,
} from '../actions/action.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';

/** Namespace of the effect ids derived from (delivery id, try). */
const EFFECT_ID_NAMESPACE = '6f1c3a0e-2b7d-5c4e-9a8f-0d3e5b7c9a21';
/** Tries of one delivery looked at before giving up (each failed or degraded try leads to the next). */
const MAX_TRIES = 20;

/** An unresolved effect on a target (active, reversing or with a failed reversal), newest first. */
export type OpenEffect = { id: string; adapterId: string | null; handle: string | null };

export type ResponseActionDeps = {
  /** The registry the bound actions run from (it holds these actions too, hence a getter). */
  registry: () => ActionRegistry;
  /** The response policy in force and its version (0: the default). */
  policy: () => Promise<{ policy: ResponsePolicy; version: number }>;
  effects: EffectCommands;
  reverser: () => EffectReverser;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  /** The severity of a case, null when it is gone. */
  caseSeverity: (caseId: string) => Promise<string | null>;
  /** Unresolved effects of the type on the normalized target, newest first. */
  openEffects: (effectType: string, targetType: TargetType, target: string) => Promise<OpenEffect[]>;
  /** Resolves once the projections have applied `position` (an effect is listed before its step ends). */
  waitFor: (position: number) => Promise<void>;
  now: () => Date;
};

type Input = { reason?: string; ttl_seconds?: number } & Record<string, unknown>;
type Output = { target: string; enforced: boolean; enforcement_performed: boolean; effect_id: string | null };
type StatusOutput = { target: string; enforced: boolean; enforcement_performed: false; state: 'enforced' | 'not_enforced' };

const refused = (refusal: EffectRefusal) => new ActionFailure(refusal.code, refusal.message, false);

/**
 * The id of try `n` of the delivery `context` makes (adapters/actions/action.ts
 * `deliveryIdOf`). Not the attempt: a crash leads to the next attempt, which must find the
 * effect the dead one left pending, and a `for_each` item must not find its neighbour's.
 */
export const effectIdOf = (context: Pick<ActionContext, 'deliveryId'>, n: number): string => uuidV5(`${context.deliveryId}/${n}`, EFFECT_ID_NAMESPACE);

/** The twelve `response.*` actions (domain/effects/managed.ts `managedActions`). */
export function responseActions(deps: ResponseActionDeps): ActionDefinition[] {
  return Object.entries(managedActions).map(([name, managed]) =>
    managed.role === 'block'
      ? blockAction(deps, name, managed)
      : managed.role === 'unblock'
        ? unblockAction(deps, name, managed)
        : statusAction(deps, name, managed),
  );
}

const schemasOf = (name: string) => {
  const schemas = builtinSchemas[name];
  if (!schemas) throw new Error(`no schema for ${name}`);
  return schemas;
};

/** The registry fields every response action shares: its name, no connection of its own, its risk and the published schemas. */
const definitionOf = (name: string, risk: 'read' | 'write') => {
  const schemas = schemasOf(name);
  return { name, connectionKind: 'internal', risk, input: schemas.input as v.GenericSchema<unknown, Input>, output: schemas.output };
};

/** The input vocabulary for `target` (SPEC.md "Bound-action input vocabulary"); the reason defaults to naming the run and step. */
const vocabularyOf = (
  deps: ResponseActionDeps,
  target: string,
  input: Input,
  context: Pick<ActionContext, 'runId' | 'stepId'>,
  ttlSeconds: number,
  handle: string | null,
): Vocabulary => ({
  target,
  scope: null,
  reason: input.reason ?? `svc run ${context.runId} step ${context.stepId}`,
  ttlSeconds,
  until: new Date(deps.now().getTime() + ttlSeconds * 1000).toISOString(),
  handle,
});

/** The `role` call of `snapshot`'s binding (or the read `{read}`) with its connection, or the adapter's refusal (domain/effects/binding.ts). */
const boundCall = (deps: ResponseActionDeps, snapshot: ParametersSnapshot | null, role: AdapterRole | { read: string }, vocabulary: Vocabulary) =>
  resolveBound(boundDeps(deps), snapshot, role, vocabulary);

/** The registry and connection store bound calls come from. */
const boundDeps = (deps: ResponseActionDeps) => ({ registry: deps.registry(), resolveConnection: deps.resolveConnection });

/** The target as the step wrote it, normalized, or the `target_invalid` refusal. */
function normalized(managed: ManagedAction, input: Input): string {
  const result = normalizeTarget(managed.targetType, String(input[managed.input] ?? ''));
  if (!result.ok) throw new ActionFailure('target_invalid', result.reason, false);
  return result.value;
}

/** Runs `call` through the registry's implementation (adapters/effects/bound-actions.ts). */
const callBound = (
  deps: ResponseActionDeps,
  call: AdapterCall,
  connection: ResolvedConnection | null,
  context: Pick<ActionContext, 'signal' | 'caseId'>,
  key: { runId: string; stepId: string; attempt: number },
) => callBoundAction(deps.registry(), call, connection, { ...context, now: deps.now }, key);

/**
 * A block on a shared vendor object (its action declares `effect.ownership`): the
 * ownership read and, when our entry is not there, the status read decide before anything
 * is written (domain/effects/managed.ts `ownershipPlan`). `apply` when the block should go
 * ahead, else the verdict to record: already enforced, the declared refusal
 * (`adapter_ownership_refused`), or the failure of a read that could not tell.
 */
async function ownershipCheck(
  deps: ResponseActionDeps,
  snapshot: ParametersSnapshot,
  call: AdapterCall,
  vocabulary: Vocabulary,
  context: Pick<ActionContext, 'signal' | 'caseId'>,
  key: { runId: string; stepId: string; attempt: number },
): Promise<'apply' | ApplyVerdict> {
  if (call.ownership === null) return 'apply';
  const read = (role: 'status' | { read: string }, step: string) =>
    readBound(boundDeps(deps), snapshot, role, vocabulary, { ...context, now: deps.now }, { ...key, stepId: step });
  const own = await read({ read: call.ownership.read }, 'ownership');
  if (!own.ok) return { status: 'failed', code: own.code, message: own.message };
  const present = own.enforced ? null : await read('status', 'status');
  if (present !== null && !present.ok) return { status: 'failed', code: present.code, message: present.message };
  const plan = ownershipPlan(own.enforced, present?.enforced === true);
  if (plan === 'apply') return 'apply';
  if (plan === 'already_enforced') return { status: 'applied', enforcementPerformed: false, already: true, handle: null };
  return { status: 'failed', code: 'adapter_ownership_refused', message: call.ownership.refusal };
}

function blockAction(deps: ResponseActionDeps, name: string, managed: ManagedAction): ActionDefinition<Input, Output> {
  const evaluate = async (input: Input, caseId: string | null) => {
    const [inForce, severity] = await Promise.all([deps.policy(), caseId === null ? null : deps.caseSeverity(caseId)]);
    const evaluation = evaluateRequest(inForce.policy, {
      effectType: managed.effectType,
      targetType: managed.targetType,
      target: String(input[managed.input] ?? ''),
      ttlSeconds: input.ttl_seconds,
      severity,
    });
    return { inForce, evaluation };
  };

  /** The adapter call for this request, or its refusal, with the binding frozen now. */
  const resolve = async (
    inForce: { policy: ResponsePolicy; version: number },
    target: string,
    ttlSeconds: number,
    input: Input,
    context: Pick<ActionContext, 'runId' | 'stepId'>,
  ) => {
    const snapshot = snapshotOf(inForce.policy, inForce.version, managed.effectType, managed.targetType);
    const vocabulary = vocabularyOf(deps, target, input, context, ttlSeconds, null);
    const { connection, resolved } = await boundCall(deps, snapshot, 'block', vocabulary);
    return { snapshot, vocabulary, connection, resolved };
  };

  /** The try this execution continues or starts: the first whose effect is absent, pending or applied, with its version. */
  const currentTry = async (context: ActionContext): Promise<{ effectId: string; known: KnownEffect }> => {
    for (let n = 1; n <= MAX_TRIES; n++) {
      const effectId = effectIdOf(context, n);
      const known = await deps.effects.load(effectId);
      const { state } = known;
      if (!state.exists || (state.status !== 'failed' && state.status !== 'degraded')) return { effectId, known };
    }
    throw new ActionFailure('effect_tries_exhausted', `${MAX_TRIES} tries of this step failed`, false);
  };

  /**
   * The gate a request no automatic grant covers opens: an approval covers this action on
   * this normalized target for this TTL through this binding (adapter, actions, connection
   * and parameters). A policy published since that leaves the request allowed and the binding
   * as it was keeps the approval good; another target, TTL or binding needs a new one.
   */
  const gateOf = (target: string, ttlSeconds: number, snapshot: ParametersSnapshot | null): ActionGate => ({
    reason: 'response_policy',
    roles: RISK_GATE_ROLES,
    message: `${name} of ${target} for ${ttlSeconds} s: no automatic grant of the response policy covers it`,
    request: requestDigest({ action: name, target_type: managed.targetType, target, ttl_seconds: ttlSeconds, binding: snapshot?.binding ?? null }),
  });

  /** The step's output for an effect this delivery already applied. */
  const answered = (target: string, effectId: string, state: EffectState): Output => ({
    target,
    enforced: state.exists && state.status === 'active',
    enforcement_performed: state.exists && state.status !== 'pending' && !state.alreadyEnforced,
    effect_id: effectId,
  });

  return {
    ...definitionOf(name, 'write'),
    async gate(input, context) {
      const { inForce, evaluation } = await evaluate(input, context.caseId);
      if (!evaluation.ok || !evaluation.needsApproval) return null;
      // A request the adapter refuses fails at once (degraded): nobody is asked to approve what cannot run.
      const { snapshot, resolved } = await resolve(inForce, evaluation.target.value, evaluation.ttlSeconds, input, context);
      return resolved.ok ? gateOf(evaluation.target.value, evaluation.ttlSeconds, snapshot) : null;
    },
    async execute(input, context) {
      // Read while the policy is evaluated: a refusal still comes first, and creates nothing.
      const tried = currentTry(context);
      tried.catch(() => {});
      const { inForce, evaluation } = await evaluate(input, context.caseId);
      if (!evaluation.ok) throw refused(evaluation.refusal);
      const target = evaluation.target.value;
      const { effectId, known } = await tried;
      if (known.state.exists && known.state.status !== 'pending') return answered(target, effectId, known.state);
      const { snapshot, vocabulary, connection, resolved } = await resolve(inForce, target, evaluation.ttlSeconds, input, context);
      // Decided again now, with the policy in force: a grant withdrawn since the step was
      // admitted, or a request other than the one approved, waits for a person.
      if (resolved.ok && evaluation.needsApproval) {
        const gate = gateOf(target, evaluation.ttlSeconds, snapshot);
        if (!approvalCovers(context.approval, gate.request)) throw new ApprovalRequired([gate]);
      }
      const requested = await deps.effects.decide(
        {
          type: 'request',
          effectId,
          effectType: managed.effectType,
          targetType: managed.targetType,
          target,
          ttlSeconds: evaluation.ttlSeconds,
          snapshot,
          snapshotDigest: snapshot && snapshotDigest(snapshot),
          refusal: resolved.ok ? null : resolved.refusal,
          origin: { runId: context.runId, stepId: context.stepId, attempt: context.attempt, caseId: context.caseId, by: null },
          now: deps.now().toISOString(),
        },
        undefined,
        known,
      );
      if (!resolved.ok) {
        if (requested.position !== null) await deps.waitFor(requested.position);
        throw refused(resolved.refusal);
      }
      const key = { runId: `effect-${effectId}`, stepId: 'apply', attempt: 1 };
      const owned = await ownershipCheck(deps, resolved.snapshot, resolved.call, vocabulary, context, key);
      const answer = owned === 'apply' ? await callBound(deps, resolved.call, connection, context, key) : null;
      const verdict = answer === null ? (owned as ApplyVerdict) : applyVerdict(answer);
      const recorded = await deps.effects.decide(
        {
          type: 'record_apply',
          effectId,
          outcome: verdict.status === 'applied' ? verdict : { status: 'failed', code: verdict.code, message: verdict.message },
          now: deps.now().toISOString(),
        },
        undefined,
        requested,
      );
      if (recorded.position !== null) await deps.waitFor(recorded.position);
      if (verdict.status === 'failed') throw new ActionFailure(verdict.code, verdict.message, answer !== null && !answer.ok && answer.retryable);
      return answered(target, effectId, recorded.state);
    },
    async preview(input, context) {
      const { inForce, evaluation } = await evaluate(input, context.caseId);
      if (!evaluation.ok) return { would: 'refuse', refusal: evaluation.refusal };
      const { resolved } = await resolve(inForce, evaluation.target.value, evaluation.ttlSeconds, input, context);
      return {
        would: resolved.ok ? 'apply' : 'degrade',
        effect_type: managed.effectType,
        target_type: managed.targetType,
        target: evaluation.target.value,
        ttl_seconds: evaluation.ttlSeconds,
        needs_approval: evaluation.needsApproval,
        ...(resolved.ok
          ? { action: resolved.call.action, connection: resolved.call.connectionName, adapter_id: resolved.snapshot.binding.adapter_id }
          : { refusal: resolved.refusal }),
      };
    },
  };
}

function unblockAction(deps: ResponseActionDeps, name: string, managed: ManagedAction): ActionDefinition<Input, Output> {
  return {
    ...definitionOf(name, 'write'),
    async execute(input, context) {
      const target = normalized(managed, input);
      const open = await deps.openEffects(managed.effectType, managed.targetType, target);
      if (open.length > 0) {
        let performed = false;
        for (const effect of open) {
          const { outcome, position, performed: undid } = await deps.reverser().reverse(effect.id, 'released', systemActor('runbook_run'));
          performed ||= undid;
          if (position !== null) await deps.waitFor(position);
          if (outcome === 'failed') {
            const state = await deps.effects.read(effect.id);
            const code = state.exists ? (state.lastError ?? 'reversal_failed') : 'reversal_failed';
            throw new ActionFailure(code, `releasing effect ${effect.id} failed: it stays reversal_failed and is tried again`, false);
          }
        }
        return { target, enforced: false, enforcement_performed: performed, effect_id: open[0]?.id ?? null };
      }
      const inForce = await deps.policy();
      const snapshot = snapshotOf(inForce.policy, inForce.version, managed.effectType, managed.targetType);
      const { connection, resolved } = await boundCall(deps, snapshot, 'unblock', vocabularyOf(deps, target, input, context, 0, null));
      if (!resolved.ok) throw refused(resolved.refusal);
      const answer = await callBound(deps, resolved.call, connection, context, context);
      if (answer.ok) return { target, enforced: false, enforcement_performed: true, effect_id: null };
      if (answer.type === 'vendor_already_absent') return { target, enforced: false, enforcement_performed: false, effect_id: null };
      throw new ActionFailure(answer.type, answer.message, answer.retryable);
    },
    async preview(input) {
      const target = normalized(managed, input);
      const open = await deps.openEffects(managed.effectType, managed.targetType, target);
      return { would: open.length > 0 ? 'release' : 'unblock', target, effects: open.map((e) => e.id) };
    },
  };
}

function statusAction(deps: ResponseActionDeps, name: string, managed: ManagedAction): ActionDefinition<Input, StatusOutput> {
  /** The read call: the newest unresolved effect's frozen binding and handle when the adapter in force applied one, else the binding in force. */
  const resolve = async (input: Input, context: Pick<ActionContext, 'runId' | 'stepId'>) => {
    const target = normalized(managed, input);
    const inForce = await deps.policy();
    const current = snapshotOf(inForce.policy, inForce.version, managed.effectType, managed.targetType);
    // An effect applied as already enforced recorded no handle: the read takes the newest that did.
    const byAdapter = (await deps.openEffects(managed.effectType, managed.targetType, target)).filter(
      (e) => current === null || e.adapterId === current.binding.adapter_id,
    );
    const open = byAdapter.find((e) => e.handle !== null) ?? byAdapter[0];
    const frozen = open ? await deps.effects.read(open.id) : null;
    const snapshot = frozen?.exists ? frozen.snapshot : current;
    const { connection, resolved } = await boundCall(deps, snapshot, 'status', vocabularyOf(deps, target, input, context, 0, open?.handle ?? null));
    return { target, connection, resolved };
  };
  return {
    ...definitionOf(name, 'read'),
    async execute(input, context) {
      const { target, connection, resolved } = await resolve(input, context);
      if (!resolved.ok) throw refused(resolved.refusal);
      const read = await readBoundState(deps.registry(), resolved, connection, { ...context, now: deps.now }, context);
      if (!read.ok) throw new ActionFailure(read.code, read.message, false);
      return { target, enforced: read.enforced, enforcement_performed: false, state: read.enforced ? 'enforced' : 'not_enforced' };
    },
    async preview(input, context) {
      const { target, resolved } = await resolve(input, context);
      return resolved.ok
        ? { would: 'read', target, action: resolved.call.action, connection: resolved.call.connectionName }
        : { would: 'refuse', target, refusal: resolved.refusal };
    },
  };
}
