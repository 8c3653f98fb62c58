/**
 * The adapter behind a managed effect (SPEC.md "Response policy" bindings, "Managed
 * containment effects" refusals, "Bound-action input vocabulary"). Pure: what the runtime
 * knows of the bound actions and the connection comes in as facts.
 *
 * `resolveAdapter` finds the binding of `(effect_type, target_type)` and checks it in this
 * order, each failure a typed refusal that leaves the effect `degraded`, never active:
 * `integration_not_configured` (no binding), `adapter_action_unavailable` (the action is
 * not registered, enabled and implemented), `adapter_action_arbitrary`,
 * `adapter_connection_missing`, `adapter_connection_test_mode` (a sandbox connection
 * never carries a real effect), then the action's input: `adapter_input_unsatisfied:<field>`
 * (a required input nothing supplies) or `adapter_input_invalid` (a value of another type).
 *
 * The binding is frozen into the effect as `parameters_snapshot` under `snapshot_digest`
 * (SHA-256 of its canonical JSON), so a later policy publish never changes how an effect
 * already applied is read back or reversed.
 */
import type { Binding, ManagedEffectType, ResponsePolicy } from '../response-policy/policy.ts';
import type { TargetType } from '../response-policy/targets.ts';
import { canonicalJson } from '../shared/canonical-json.ts';
import type { EffectRefusal } from './request.ts';
import { sha256Hex } from '../shared/hash-chain.ts';

type Scalar = string | number | boolean;
export type InputType = 'string' | 'integer' | 'number' | 'boolean';
/** A declared input of a bound action: its one type, or every type a union of its schema accepts (a TTL of seconds or a duration text). */
export type InputDeclaration = { name: string; type: InputType | readonly InputType[]; required: boolean };
/** What a read declares enforced reads as (a custom action's `effect.enforced_output` / `enforced_values`). */
export type EnforcedDeclaration = { output: string; values: string[] };
/** The read proving a shared vendor object's entry is ours, and the refusal when the object holds the target but not as ours (`effect.ownership`). */
export type OwnershipDeclaration = { read: string; refusal: string };
/** A bound action as the registry knows it; null when it is not registered at all. */
export type BoundActionFacts = {
  enabled: boolean;
  arbitrary: boolean;
  inputs: InputDeclaration[];
  enforced: EnforcedDeclaration | null;
  ownership: OwnershipDeclaration | null;
  /** The action that undoes this one (a custom action's `compensation.action`, a built-in's declared compensation); null when none is declared. */
  compensation: string | null;
} | null;
export type ConnectionFacts = { exists: boolean; testMode: boolean };
export type AdapterRole = 'block' | 'unblock' | 'status';

/** What the effect supplies to the bound action's inputs (SPEC.md "Bound-action input vocabulary"). */
export type Vocabulary = {
  /** The normalized target. */
  target: string;
  scope: string | null;
  reason: string | null;
  ttlSeconds: number;
  /** When the effect ends, RFC 3339. */
  until: string;
  /** The provider handle the apply recorded (rule id, decision id); null before one exists. */
  handle: string | null;
};

export type ParametersSnapshot = { policy_version: number; binding: Binding };

export type AdapterCall = {
  action: string;
  input: Record<string, Scalar>;
  connectionName: string;
  enforced: EnforcedDeclaration | null;
  ownership: OwnershipDeclaration | null;
};
export type Resolved = { ok: true; snapshot: ParametersSnapshot; digest: string; call: AdapterCall } | { ok: false; refusal: EffectRefusal };

const vocabularyNames: Record<string, (v: Vocabulary) => Scalar | null> = {
  value: (v) => v.target,
  target: (v) => v.target,
  ip: (v) => v.target,
  scope: (v) => v.scope,
  reason: (v) => v.reason,
  comment: (v) => v.reason,
  note: (v) => v.reason,
  until: (v) => v.until,
  duration: (v) => `${v.ttlSeconds}s`,
  ttl: (v) => `${v.ttlSeconds}s`,
  ttl_seconds: (v) => v.ttlSeconds,
  external_reference: (v) => v.handle,
  rule_id: (v) => v.handle,
  decision_id: (v) => v.handle,
  handle: (v) => v.handle,
};

/** The binding of the pair in `policy`, frozen with the policy's version; null when none. */
export function snapshotOf(policy: ResponsePolicy, policyVersion: number, effectType: ManagedEffectType, targetType: TargetType): ParametersSnapshot | null {
  const binding = policy.adapters.find((b) => b.effect_type === effectType && b.target_type === targetType);
  return binding ? { policy_version: policyVersion, binding } : null;
}

/**
 * The connection a bound call runs on: a read (status or ownership) on the binding's
 * `parameters.status_connection` when it names one, for a vendor read over another
 * transport than its writes (the ban list's bouncer-key http reads beside its ssh CLI
 * blocks); everything else, and every read of a binding without one, on `connection_name`.
 */
export function connectionNameOf(binding: Binding, read: boolean): string {
  const status = binding.parameters.status_connection;
  return read && typeof status === 'string' && status !== '' ? status : binding.connection_name;
}

/** SHA-256 of the snapshot's canonical JSON. */
export const snapshotDigest = (snapshot: ParametersSnapshot): string => sha256Hex(canonicalJson(snapshot));

const refuse = (code: string, message: string, params?: Record<string, unknown>): Resolved => ({
  ok: false,
  refusal: params ? { code, message, params } : { code, message },
});

/**
 * The call of the snapshot's `role` action with its input from `vocabulary` and the
 * binding's parameters, or the typed refusal. `actionFacts` and `connection` describe the
 * runtime now. A status role without a bound status action is refused as
 * `adapter_no_status_action`, and one whose action declares no enforced state as
 * `adapter_status_undeclared`, before any vendor call.
 */
export function resolveAdapter(
  snapshot: ParametersSnapshot | null,
  role: AdapterRole,
  actionFacts: (name: string) => BoundActionFacts,
  connection: ConnectionFacts,
  vocabulary: Vocabulary,
): Resolved {
  if (snapshot === null) return refuse('integration_not_configured', 'the response policy binds no adapter for this effect and target type');
  const { binding } = snapshot;
  const action = role === 'block' ? binding.block_action : role === 'unblock' ? binding.unblock_action : binding.status_action;
  if (action === null) return refuse('adapter_no_status_action', `adapter ${binding.adapter_id} has no status action`, { adapter_id: binding.adapter_id });
  return resolveCall(snapshot, action, role === 'status', actionFacts, connection, vocabulary);
}

/**
 * The call of a read `action` that is not one of the binding's roles (an ownership read,
 * `effect.ownership.read`), on the binding's connection and parameters, checked like a
 * status read: it must declare its enforced state.
 */
export function resolveRead(
  snapshot: ParametersSnapshot,
  action: string,
  actionFacts: (name: string) => BoundActionFacts,
  connection: ConnectionFacts,
  vocabulary: Vocabulary,
): Resolved {
  return resolveCall(snapshot, action, true, actionFacts, connection, vocabulary);
}

function resolveCall(
  snapshot: ParametersSnapshot,
  action: string,
  read: boolean,
  actionFacts: (name: string) => BoundActionFacts,
  connection: ConnectionFacts,
  vocabulary: Vocabulary,
): Resolved {
  const connectionName = connectionNameOf(snapshot.binding, read);
  const facts = actionFacts(action);
  if (facts === null || !facts.enabled) return refuse('adapter_action_unavailable', `${action} is not a registered, enabled action`, { action });
  if (facts.arbitrary) return refuse('adapter_action_arbitrary', `${action} is in the arbitrary tier`, { action });
  if (read && facts.enforced === null) {
    return refuse('adapter_status_undeclared', `${action} declares no effect.enforced_output: its answer cannot say whether the target is blocked`, { action });
  }
  if (!connection.exists) return refuse('adapter_connection_missing', `connection ${connectionName} does not exist`, { connection: connectionName });
  if (connection.testMode) {
    return refuse('adapter_connection_test_mode', `connection ${connectionName} is in test mode: it never carries a real effect`, {
      connection: connectionName,
    });
  }
  const input = boundInput(facts.inputs, vocabulary, snapshot.binding.parameters);
  if (!input.ok) return { ok: false, refusal: input.refusal };
  const digest = snapshotDigest(snapshot);
  return {
    ok: true,
    snapshot,
    digest,
    call: { action, input: input.value, connectionName, enforced: facts.enforced, ownership: facts.ownership },
  };
}

/**
 * The bound action's input: each declared input named in the vocabulary takes the
 * effect's value, any other takes the binding parameter of its name; absent values are
 * left out, and a number recorded as text goes as a number where only numbers are taken.
 * Refuses `adapter_input_unsatisfied:<field>` for a required input left empty and
 * `adapter_input_invalid` for a value that is not of the declared type.
 */
export function boundInput(
  inputs: readonly InputDeclaration[],
  vocabulary: Vocabulary,
  parameters: Readonly<Record<string, Scalar | null>>,
): { ok: true; value: Record<string, Scalar> } | { ok: false; refusal: EffectRefusal } {
  const value: Record<string, Scalar> = {};
  for (const input of inputs) {
    const from = vocabularyNames[input.name];
    const supplied = from ? from(vocabulary) : (parameters[input.name] ?? null);
    if (supplied === null) {
      if (input.required)
        return { ok: false, refusal: { code: `adapter_input_unsatisfied:${input.name}`, message: `nothing supplies the required input ${input.name}` } };
      continue;
    }
    const typed = asDeclared(supplied, input.type);
    if (!ofType(typed, input.type)) {
      return {
        ok: false,
        refusal: {
          code: 'adapter_input_invalid',
          message: `input ${input.name} is declared ${[input.type].flat().join(' or ')}, the value is not`,
          params: { field: input.name },
        },
      };
    }
    value[input.name] = typed;
  }
  return { ok: true, value };
}

/**
 * A handle is recorded as text; a number written as text (a ban's decision id `"4"`) goes
 * as that number to an input that takes numbers and not text. Anything else is unchanged.
 */
function asDeclared(value: Scalar, declared: InputDeclaration['type']): Scalar {
  const types = [declared].flat();
  if (typeof value !== 'string' || types.includes('string') || !/^-?\d+(\.\d+)?$/.test(value)) return value;
  return types.includes('number') || (types.includes('integer') && /^-?\d+$/.test(value)) ? Number(value) : value;
}

function ofType(value: Scalar, declared: InputDeclaration['type']): boolean {
  return typeof declared === 'string' ? ofOneType(value, declared) : declared.some((t) => ofOneType(value, t));
}

function ofOneType(value: Scalar, type: InputType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}
