/**
 * The action registry (SPEC.md "Action registry entry", GET /actions): the 37 built-ins
 * of `builtin-catalog.ts` (SPEC.md's 34 and the three managed identity actions) with the
 * implementations this build carries, and the enabled custom actions
 * (runtime/custom-action-sync.ts keeps them current). It answers runbook validation
 * (unknown actions, actions of a product that is not installed, literal `with` values
 * that break the input schema) and the worker (implementation, risk).
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ActionDefinition } from '../actions/action.ts';
import { builtinCatalog } from '../actions/builtin-catalog.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';
import { caseUpdate } from '../actions/case-update.ts';
import { createHttpRequest } from '../actions/http-request.ts';
import { createNotifyEmail } from '../actions/notify-email.ts';
import { banlistBlock, banlistStatus, banlistUnblock } from '../actions/banlist.ts';
import { pipelineActions } from '../actions/pipeline.ts';
import { reputationActions } from '../actions/enrich-reputation.ts';
import { ticketActions } from '../actions/notify-ticket.ts';
import { createNotifyChatA } from '../actions/notify-chat-a.ts';
import { createNotifyChatB } from '../actions/notify-chat-b.ts';
import { createNotifyPagerA, createNotifyPagerB } from '../actions/notify-pager.ts';
import { createNotifyWebhook } from '../actions/notify-webhook.ts';
import { createTokenSource, type TokenSource } from '../actions/oauth2-token.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import { sshCommand } from '../actions/ssh-command.ts';
import { detectorActions } from '../detector/actions.ts';
import type { DetectorClient } from '../detector/client.ts';
import { someString } from '../../domain/shared/json-text.ts';

/** Action name prefixes that belong to a separately installed product (SPEC.md "Runbook source rules"). */
const PRODUCT_PREFIXES = ['detector', 'pipeline'] as const;

/** One GET /actions item (SPEC.md "Action registry entry"); the schemas are JSON Schema (draft-07). */
export const actionRegistryEntrySchema = v.strictObject({
  name: v.string(),
  input_schema: v.record(v.string(), v.unknown()),
  output_schema: v.record(v.string(), v.unknown()),
  connection_kind: v.string(),
  implemented: v.boolean(),
  risk: v.picklist(['read', 'write', 'notify', 'arbitrary']),
});
export type ActionRegistryEntry = v.InferOutput<typeof actionRegistryEntrySchema>;

/** A problem of a step's `with`, `path` below `with`. */
export type InputProblem = { path: string[]; msg: string };

export type ActionRegistry = {
  isKnownAction: (name: string) => boolean;
  implementation: (name: string) => ActionDefinition | undefined;
  /** The action's risk (SPEC.md "Action registry entry"), null for an unknown action. */
  riskOf: (name: string) => string | null;
  /** Whether the implemented action's risk is bounded, so automatic runs need no gate for it. */
  isBounded: (name: string) => boolean;
  /** Whether every live execution of the action needs an admin's approval (arbitrary-tier custom actions). */
  needsAdminGate: (name: string) => boolean;
  /**
   * Replaces the custom actions with `custom` (the enabled ones); names in `disabled`
   * are refused with their own reason. A custom name never shadows a built-in.
   */
  setCustomActions: (custom: ActionDefinition[], disabled?: readonly string[]) => void;
  /** Every action, sorted by name. */
  entries: () => ActionRegistryEntry[];
  /** The product (`detector`, `pipeline`) an action needs installed, or null. */
  productOf: (name: string) => string | null;
  /** Whether that product is installed (SVC_INSTALLED_PRODUCTS). */
  productInstalled: (product: string) => boolean;
  /**
   * Why `name` cannot be used in a runbook, or null: unknown, or (unless
   * `ignoreProducts`) it needs a product that is not installed.
   */
  actionProblem: (name: string, ignoreProducts?: boolean) => string | null;
  /**
   * Why a runbook step may not name `name`, or null: its actionProblem, or it is a
   * containment adapter (ActionDefinition.managedAdapter), which runs only through the
   * `response.*` actions inside the response policy.
   */
  stepProblem: (name: string, ignoreProducts?: boolean) => string | null;
  /**
   * Checks a step's literal `with` values against the action's input schema. The
   * reserved `connection` key is not an input. A value holding a template (`{{` or
   * `{%`), and everything below it, is left to the run-time check after rendering, as
   * is a whole-object rule when any value is templated; an unknown key is refused
   * whatever its value. Unknown actions give no problems.
   */
  checkInput: (name: string, withMap: Record<string, unknown>) => InputProblem[];
};

/**
 * The actions that execute in this build; the HTTP ones send through `outbound`, which
 * must be the SSRF-guarded edge (adapters/outbound/guarded-fetch.ts) outside tests, and
 * `http.request` takes oauth2 tokens from `tokens` (shared with the connection probe); the
 * detector actions exist when a `detector` client (with its exchange) is given; `notify.email`
 * trusts `extraCa` (SVC_OUTBOUND_CA_FILE's PEM text) besides Node's roots.
 */
export function builtinActions(
  outbound: OutboundFetch,
  tokens: TokenSource = createTokenSource(outbound),
  detector?: DetectorClient,
  extraCa: string | null = null,
): ActionDefinition[] {
  return [
    caseUpdate,
    createHttpRequest(outbound, tokens),
    createNotifyWebhook(outbound),
    createNotifyPagerA(outbound),
    createNotifyPagerB(outbound),
    createNotifyEmail(extraCa),
    sshCommand,
    banlistBlock,
    banlistStatus,
    banlistUnblock,
    ...pipelineActions(outbound),
    ...reputationActions(outbound),
    ...ticketActions(outbound),
    createNotifyChatA(outbound),
    createNotifyChatB(outbound),
    ...(detector ? detectorActions(detector) : []),
  ];
}

/**
 * Builds the registry from `implementations` (the runtime passes `builtinActions`)
 * and the installed products (`detector`, `pipeline`; default none). Custom actions
 * come and go at run time through `setCustomActions`, which replaces an immutable
 * snapshot: every lookup stays synchronous and sees one whole set.
 */
export function createActionRegistry(implementations: ActionDefinition[], installedProducts: readonly string[] = []): ActionRegistry {
  const catalog = new Map(builtinCatalog.map((e) => [e.name, e]));
  const installed = new Set(installedProducts);
  const productOf = (name: string) => PRODUCT_PREFIXES.find((p) => name.startsWith(`${p}.`)) ?? null;
  type Snapshot = { byName: Map<string, ActionDefinition>; disabled: ReadonlySet<string>; entries: ActionRegistryEntry[] };
  const snapshotOf = (custom: ActionDefinition[], disabled: readonly string[]): Snapshot => {
    const builtinNames = new Set(implementations.map((a) => a.name));
    const byName = new Map([...custom.filter((a) => !builtinNames.has(a.name) && !catalog.has(a.name)), ...implementations].map((a) => [a.name, a]));
    const entries = [...new Set([...catalog.keys(), ...byName.keys()])].sort().map((name): ActionRegistryEntry => {
      const impl = byName.get(name);
      const builtin = catalog.get(name);
      const schemas = builtinSchemas[name];
      return {
        name,
        input_schema: jsonSchema(impl?.input ?? schemas?.input),
        output_schema: jsonSchema(impl?.output ?? schemas?.output),
        connection_kind: impl?.connectionKind ?? builtin?.connectionKind ?? 'internal',
        implemented: impl !== undefined,
        risk: impl?.risk ?? builtin?.risk ?? 'arbitrary',
      };
    });
    return { byName, disabled: new Set(disabled.filter((n) => !byName.has(n))), entries };
  };
  let current = snapshotOf([], []);
  const inputOf = (name: string) => current.byName.get(name)?.input ?? builtinSchemas[name]?.input;
  const isKnownAction = (name: string) => catalog.has(name) || current.byName.has(name);
  const registry: ActionRegistry = {
    isKnownAction,
    implementation: (name) => current.byName.get(name),
    riskOf: (name) => current.byName.get(name)?.risk ?? catalog.get(name)?.risk ?? null,
    isBounded: (name) => current.byName.get(name)?.bounded === true,
    needsAdminGate: (name) => current.byName.get(name)?.adminGate === true,
    entries: () => current.entries,
    setCustomActions: (custom, disabled = []) => {
      current = snapshotOf(custom, disabled);
    },
    productOf,
    productInstalled: (product) => installed.has(product),
    actionProblem: (name, ignoreProducts = false) => {
      if (current.disabled.has(name)) return `custom action '${name}' is disabled`;
      if (!isKnownAction(name)) return `unknown action '${name}'`;
      const product = productOf(name);
      if (!ignoreProducts && product !== null && !installed.has(product)) {
        return `action '${name}' needs the ${product} product, which is not installed (SVC_INSTALLED_PRODUCTS)`;
      }
      return null;
    },
    stepProblem: (name, ignoreProducts = false) => {
      const problem = registry.actionProblem(name, ignoreProducts);
      if (problem !== null || current.byName.get(name)?.managedAdapter !== true) return problem;
      return `action '${name}' is a containment adapter: a runbook calls it through the response.* actions, inside the response policy`;
    },
    checkInput: (name, withMap) => {
      const schema = inputOf(name);
      if (!schema) return [];
      const { connection: _connection, ...input } = withMap;
      const result = v.safeParse(schema, input);
      if (result.success) return [];
      const anyTemplate = holdsTemplate(input);
      return result.issues.flatMap((issue): InputProblem[] => {
        const path = (issue.path ?? []).map((p) => String(p.key));
        // An unknown key is wrong whatever its value renders to.
        const unknownKey = issue.type === 'strict_object';
        if (!unknownKey && (path.length === 0 ? anyTemplate : templatedAlong(input, path))) return [];
        return [{ path, msg: issue.message }];
      });
    },
  };
  return registry;
}

function jsonSchema(schema: v.GenericSchema | undefined): Record<string, unknown> {
  // Transforms and custom checks have no JSON Schema form: they are left out, not fatal.
  return schema ? (toJsonSchema(schema, { errorMode: 'ignore' }) as Record<string, unknown>) : {};
}

const isTemplate = (value: unknown): boolean => typeof value === 'string' && (value.includes('{{') || value.includes('{%'));

const holdsTemplate = (value: unknown): boolean => someString(value, isTemplate);

/** True when the value at `path`, or one on the way to it, is a template. */
function templatedAlong(root: unknown, path: string[]): boolean {
  let value: unknown = root;
  for (const key of path) {
    if (isTemplate(value)) return true;
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return false;
    value = (value as Record<string, unknown>)[key];
  }
  return isTemplate(value);
}
