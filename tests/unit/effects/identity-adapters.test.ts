/**
 * The shipped identity adapter packs under the bound-action input vocabulary (SPEC.md
 * "Bound-action input vocabulary"; domain/effects/binding.ts): each pack action is
 * compiled as an install registers it, and its block, unblock and status calls are
 * resolved from a `disable_identity`/`identity` binding with the parameters its header
 * documents. Every required input is supplied by the effect's normalized target
 * (`target`) or a binding parameter, so `response.identity_*` needs no vocabulary name
 * beyond SPEC.md's; a binding missing a documented parameter is refused before any call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { customActionDefinition } from '../../../adapters/actions/custom-action.ts';
import { builtinActions, createActionRegistry } from '../../../adapters/action-registry/registry.ts';
import { boundActionFacts } from '../../../adapters/effects/bound-actions.ts';
import { resolveAdapter, type AdapterRole, type Vocabulary } from '../../../domain/effects/binding.ts';
import { storedSpec } from '../../../domain/custom-actions/spec.ts';
import { readPackText } from '../../../domain/integration-packs/integrity.ts';
import { integrationPackSchema } from '../../../domain/integration-packs/pack.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');
const USER = 'adelev@contoso.com';
const vocabulary: Vocabulary = { target: USER, scope: null, reason: 'SVC-9: password spray', ttlSeconds: 600, until: '2026-01-01T00:10:00.000Z', handle: null };
const roles: AdapterRole[] = ['block', 'unblock', 'status'];

/** The registry with pack `pack`'s actions registered as its install registers them. */
function registryWith(pack: string) {
  const read = readPackText(readFileSync(join(PACKS_DIR, `${pack}.yaml`), 'utf8'));
  if (!read.ok) throw new Error(read.msg);
  const parsed = v.parse(integrationPackSchema, read.data);
  const registry = createActionRegistry(builtinActions(fetch));
  registry.setCustomActions(parsed.actions.map((a) => customActionDefinition(storedSpec(a.spec), { fetch })));
  return registry;
}

/** Each role's resolved input, or its refusal code, for a binding of `pack` with `parameters`. */
function inputsOf(pack: string, parameters: Record<string, boolean>) {
  const registry = registryWith(pack);
  const binding = {
    effect_type: 'disable_identity' as const,
    target_type: 'identity' as const,
    adapter_id: pack,
    block_action: `custom.${pack}.block`,
    unblock_action: `custom.${pack}.unblock`,
    status_action: `custom.${pack}.status`,
    connection_name: 'idp',
    parameters,
  };
  return Object.fromEntries(
    roles.map((role) => {
      const resolved = resolveAdapter(
        { policy_version: 1, binding },
        role,
        (name) => boundActionFacts(registry, name),
        { exists: true, testMode: false },
        vocabulary,
      );
      return [role, resolved.ok ? resolved.call.input : resolved.refusal.code];
    }),
  );
}

describe('the shipped identity packs under the input vocabulary', () => {
  it('idp_user_suspend_a takes the identity as `target` in every call, with no parameter', () => {
    expect(inputsOf('idp_user_suspend_a', {})).toEqual({ block: { target: USER }, unblock: { target: USER }, status: { target: USER } });
  });

  it('idp_user_disable_b takes the identity as `target` and the JSON booleans it writes from its two parameters', () => {
    expect(inputsOf('idp_user_disable_b', { account_enabled_on_block: false, account_enabled_on_release: true })).toEqual({
      block: { target: USER, account_enabled_on_block: false },
      unblock: { target: USER, account_enabled_on_release: true },
      status: { target: USER },
    });
    expect(inputsOf('idp_user_disable_b', {})).toEqual({
      block: 'adapter_input_unsatisfied:account_enabled_on_block',
      unblock: 'adapter_input_unsatisfied:account_enabled_on_release',
      status: { target: USER },
    });
  });
});
