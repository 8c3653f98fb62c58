/**
 * What the runtime knows of an action a binding names and of its connection
 * (domain/effects/binding.ts `BoundActionFacts`, `ConnectionFacts`): from the live action
 * registry (enabled, arbitrary tier, the declared inputs of its published input schema,
 * the enforced state a custom read declares, its ownership read) and the connection store
 * (exists, `config.test_mode`). `callBoundAction` runs a resolved adapter call through the
 * registry's implementation (the code a run uses) and answers the vendor's verdict instead
 * of throwing it; `readBoundState` reads a status or ownership read's answer.
 */
import * as v from 'valibot';
import {
  connectionNameOf,
  resolveAdapter,
  resolveRead,
  type AdapterCall,
  type AdapterRole,
  type BoundActionFacts,
  type ConnectionFacts,
  type InputType,
  type ParametersSnapshot,
  type Resolved,
  type Vocabulary,
} from '../../domain/effects/binding.ts';
import { renderTemplate } from '../../domain/custom-actions/render.ts';
import { readBack, type AdapterAnswer } from '../../domain/effects/managed.ts';
import { ActionFailure, deliveryIdOf, type ActionContext, type ResolvedConnection } from '../actions/action.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';

const jsonTypes: Record<string, InputType> = { string: 'string', integer: 'integer', number: 'number', boolean: 'boolean' };

type PropertySchema = { type?: unknown; anyOf?: { type?: unknown }[] };

/** The scalar type, or the types of a union (`anyOf`), a published input property accepts; string when it names none. */
function declaredType(property: PropertySchema): InputType | InputType[] {
  if (typeof property.type === 'string') return jsonTypes[property.type] ?? 'string';
  const types = (property.anyOf ?? []).flatMap((a) => (typeof a.type === 'string' && jsonTypes[a.type] ? [jsonTypes[a.type] as InputType] : []));
  return types.length === 1 ? (types[0] as InputType) : types.length > 1 ? types : 'string';
}

/** The facts of `name` in `registry`, null when it is not registered or has no implementation. */
export function boundActionFacts(registry: ActionRegistry, name: string): BoundActionFacts {
  const entry = registry.entries().find((e) => e.name === name);
  if (!entry || registry.implementation(name) === undefined) return null;
  const schema = entry.input_schema as { properties?: Record<string, PropertySchema>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const inputs = Object.entries(schema.properties ?? {})
    .filter(([key]) => key !== 'connection')
    .map(([key, property]) => ({ name: key, type: declaredType(property), required: required.has(key) }));
  const implementation = registry.implementation(name);
  const effect = implementation?.effect;
  const enforced =
    effect?.enforced_output !== undefined && effect.enforced_values?.length ? { output: effect.enforced_output, values: effect.enforced_values } : null;
  return {
    enabled: registry.actionProblem(name, true) === null,
    arbitrary: registry.riskOf(name) === 'arbitrary' || registry.needsAdminGate(name),
    inputs,
    enforced,
    ownership: effect?.ownership ?? null,
    compensation: implementation?.compensation ?? null,
  };
}

/** Whether the connection exists and is a test-mode one (a sandbox never carries a real effect). */
export const connectionFacts = (connection: ResolvedConnection | null): ConnectionFacts => ({
  exists: connection !== null,
  testMode: connection?.config.test_mode === true,
});

/** Where bound calls come from: the live registry and the connection store. */
export type BoundCallDeps = { registry: ActionRegistry; resolveConnection: (name: string) => Promise<ResolvedConnection | null> };

/**
 * The call of `snapshot`'s `role` action, or of the read action `{read}` (an ownership
 * read), with the connection it runs on (domain/effects/binding.ts `connectionNameOf`),
 * or the adapter's typed refusal with no connection looked up past the binding.
 */
export async function resolveBound(
  deps: BoundCallDeps,
  snapshot: ParametersSnapshot | null,
  role: AdapterRole | { read: string },
  vocabulary: Vocabulary,
): Promise<{ connection: ResolvedConnection | null; resolved: Resolved }> {
  const read = typeof role !== 'string' || role === 'status';
  const connection = snapshot ? await deps.resolveConnection(connectionNameOf(snapshot.binding, read)) : null;
  const facts = (n: string) => boundActionFacts(deps.registry, n);
  const resolved =
    typeof role === 'string' || snapshot === null
      ? resolveAdapter(snapshot, typeof role === 'string' ? role : 'status', facts, connectionFacts(connection), vocabulary)
      : resolveRead(snapshot, role.read, facts, connectionFacts(connection), vocabulary);
  return { connection, resolved };
}

/**
 * Runs `call` through the registry's implementation of its action on `connection`, under
 * the idempotency `key` (run, step and attempt; the call's delivery id, which an action derives
 * its idempotency key from, takes the attempt as its pass, so each key names one call); resolves
 * the answer, never throws for a vendor's failure (`retryable` as the action said).
 */
export async function callBoundAction(
  registry: ActionRegistry,
  call: AdapterCall,
  connection: ResolvedConnection | null,
  context: Pick<ActionContext, 'signal' | 'caseId' | 'now'>,
  key: { runId: string; stepId: string; attempt: number },
): Promise<AdapterAnswer & { retryable: boolean }> {
  const definition = registry.implementation(call.action);
  const parsed = definition && v.safeParse(definition.input, call.input);
  if (!definition || !parsed?.success) return { ok: false, type: 'adapter_input_invalid', message: `${call.action} refused its input`, retryable: false };
  try {
    const output = await definition.execute(parsed.output, {
      ...key,
      deliveryId: deliveryIdOf(key.runId, key.stepId, key.attempt, null),
      caseId: context.caseId,
      connection,
      signal: context.signal,
      cases: null,
      approval: null,
      resume: null,
      now: context.now,
    });
    return { ok: true, output, retryable: false };
  } catch (error) {
    if (error instanceof ActionFailure) return { ok: false, type: error.type, message: error.message, retryable: error.retryable };
    return { ok: false, type: 'adapter_error', message: error instanceof Error ? error.message : String(error), retryable: false };
  }
}

/** What a read said: whether the target (or our entry) is there, or why it could not tell. */
export type ReadState = { ok: true; enforced: boolean } | { ok: false; code: string; message: string };

/**
 * Runs a resolved read (a status or ownership read) and reads its answer by the read-back
 * rule; an answer that the object is gone (`vendor_already_absent`) is a read of "not
 * there". A refused resolution or any other failure cannot tell.
 */
export async function readBoundState(
  registry: ActionRegistry,
  resolved: Resolved,
  connection: ResolvedConnection | null,
  context: Pick<ActionContext, 'signal' | 'caseId' | 'now'>,
  key: { runId: string; stepId: string; attempt: number },
): Promise<ReadState> {
  if (!resolved.ok) return { ok: false, code: resolved.refusal.code, message: resolved.refusal.message };
  const answer = await callBoundAction(registry, resolved.call, connection, context, key);
  if (!answer.ok) return answer.type === 'vendor_already_absent' ? { ok: true, enforced: false } : { ok: false, code: answer.type, message: answer.message };
  const { enforced, input } = resolved.call;
  // A declared value may name the read's own input ({{ inputs.ip }}: the read answered this address back).
  return {
    ok: true,
    enforced: enforced !== null && readBack(answer.output, { ...enforced, values: enforced.values.map((value) => renderTemplate(value, input)) }),
  };
}

/** Resolves `snapshot`'s status read, or the ownership read `{read}`, on its connection and reads it (resolveBound, then readBoundState). */
export async function readBound(
  deps: BoundCallDeps,
  snapshot: ParametersSnapshot | null,
  role: 'status' | { read: string },
  vocabulary: Vocabulary,
  context: Pick<ActionContext, 'signal' | 'caseId' | 'now'>,
  key: { runId: string; stepId: string; attempt: number },
): Promise<ReadState> {
  const { connection, resolved } = await resolveBound(deps, snapshot, role, vocabulary);
  return readBoundState(deps.registry, resolved, connection, context, key);
}
