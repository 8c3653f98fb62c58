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
import type { AdapterCall, BoundActionFacts, ConnectionFacts, InputDeclaration, Resolved } from '../../domain/effects/binding.ts';
import { readBack, type AdapterAnswer } from '../../domain/effects/managed.ts';
import { ActionFailure, type ActionContext, type ResolvedConnection } from '../actions/action.ts';
import type { ActionRegistry } from '../actions/registry.ts';

const jsonTypes: Record<string, InputDeclaration['type']> = { string: 'string', integer: 'integer', number: 'number', boolean: 'boolean' };

/** The facts of `name` in `registry`, null when it is not registered or has no implementation. */
export function boundActionFacts(registry: ActionRegistry, name: string): BoundActionFacts {
  const entry = registry.entries().find((e) => e.name === name);
  if (!entry || registry.implementation(name) === undefined) return null;
  const schema = entry.input_schema as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const inputs = Object.entries(schema.properties ?? {})
    .filter(([key]) => key !== 'connection')
    .map(([key, property]) => {
      const type = typeof property.type === 'string' ? property.type : property.anyOf?.map((a) => a.type).find((t) => typeof t === 'string' && t !== 'null');
      return { name: key, type: jsonTypes[String(type)] ?? 'string', required: required.has(key) };
    });
  const effect = registry.implementation(name)?.effect;
  const enforced =
    effect?.enforced_output !== undefined && effect.enforced_values?.length ? { output: effect.enforced_output, values: effect.enforced_values } : null;
  return {
    enabled: registry.actionProblem(name, true) === null,
    arbitrary: registry.riskOf(name) === 'arbitrary' || registry.needsAdminGate(name),
    inputs,
    enforced,
    ownership: effect?.ownership ?? null,
  };
}

/** Whether the connection exists and is a test-mode one (a sandbox never carries a real effect). */
export const connectionFacts = (connection: ResolvedConnection | null): ConnectionFacts => ({
  exists: connection !== null,
  testMode: connection?.config.test_mode === true,
});

/**
 * Runs `call` through the registry's implementation of its action on `connection`, under
 * the idempotency `key` (run, step and attempt the action derives its key from); resolves
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
      caseId: context.caseId,
      connection,
      signal: context.signal,
      cases: null,
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
  return { ok: true, enforced: resolved.call.enforced !== null && readBack(answer.output, resolved.call.enforced) };
}
