/**
 * What the runtime knows of an action a binding names and of its connection
 * (domain/effects/binding.ts `BoundActionFacts`, `ConnectionFacts`): from the live action
 * registry (enabled, arbitrary tier, the declared inputs of its published input schema,
 * the enforced state a custom read declares)
 * and the connection store (exists, `config.test_mode`).
 */
import type { BoundActionFacts, ConnectionFacts, InputDeclaration } from '../../domain/effects/binding.ts';
import type { ResolvedConnection } from '../actions/action.ts';
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
  };
}

/** Whether the connection exists and is a test-mode one (a sandbox never carries a real effect). */
export const connectionFacts = (connection: ResolvedConnection | null): ConnectionFacts => ({
  exists: connection !== null,
  testMode: connection?.config.test_mode === true,
});
