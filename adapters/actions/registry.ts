/**
 * The action registry: the built-in catalog plus the implementations this build
 * carries. `isKnownAction` feeds runbook validation (SPEC.md "POST /runbooks/validate").
 */
import type { ActionDefinition } from './action.ts';
import { builtinCatalog } from './builtin-catalog.ts';
import { caseUpdate } from './case-update.ts';
import { httpRequest } from './http-request.ts';
import { notifyWebhook } from './notify-webhook.ts';

export type ActionRegistry = {
  isKnownAction: (name: string) => boolean;
  implementation: (name: string) => ActionDefinition | undefined;
  /** The action's risk (SPEC.md "Action registry entry"), null for an unknown action. */
  riskOf: (name: string) => string | null;
};

export function createActionRegistry(implementations: ActionDefinition[] = [caseUpdate, httpRequest, notifyWebhook]): ActionRegistry {
  const known = new Set(builtinCatalog.map((e) => e.name));
  const byName = new Map(implementations.map((a) => [a.name, a]));
  return {
    isKnownAction: (name) => known.has(name) || byName.has(name),
    implementation: (name) => byName.get(name),
    riskOf: (name) => byName.get(name)?.risk ?? builtinCatalog.find((e) => e.name === name)?.risk ?? null,
  };
}
