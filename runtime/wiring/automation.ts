/**
 * Automation (SPEC.md "Actions", "Runbooks", "Containment", "AI"): connections, the AI
 * call path, every action by name (built-in, AI, MCP, containment and custom), the
 * containment effects and their reversal, and the stored runbooks, each kept fresh
 * every SVC_RUNBOOK_REFRESH_MS.
 */
import { builtinActions, createActionRegistry, type ActionRegistry } from '../../adapters/action-registry/registry.ts';
import { createAiAgentAction } from '../../adapters/ai/agent-action.ts';
import { createTriageAssessor, type TriageAssessor } from '../../adapters/ai/case-triage.ts';
import { createAiInvoker, type AiInvoker } from '../../adapters/ai/invoke.ts';
import type { AiProviderPort } from '../../adapters/ai/provider.ts';
import { createAiSettingsStore, type AiSettingsStore } from '../../adapters/ai/settings-store.ts';
import { createAiTriageAction } from '../../adapters/ai/triage-action.ts';
import { createEffectCommands } from '../../adapters/commands/effects.ts';
import { createResponsePolicyCommands, type ResponsePolicyCommands } from '../../adapters/commands/response-policy.ts';
import { createConnectionProbes, type ConnectionProbes } from '../../adapters/connections/probes.ts';
import { createConnectionStore, type ConnectionStore } from '../../adapters/connections/store.ts';
import { responseActions } from '../../adapters/effects/response-actions.ts';
import { createEffectReverser, type EffectReverser } from '../../adapters/effects/reversal.ts';
import { PRODUCT } from '../../adapters/http/peer.routes.ts';
import { createMcpCall } from '../../adapters/mcp/call-action.ts';
import type { RunbookStore } from '../../adapters/runbooks/runbook-store.ts';
import { createTemplateEngine, type TemplateEngine } from '../../adapters/templates/liquid.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import { unresolvedEffectsOn } from '../../projections/effects/effects.queries.ts';
import { createCustomActionSync, type CustomActionSync } from '../custom-action-sync.ts';
import { loadRunbooks } from '../runbook-loader.ts';
import type { Core } from './core.ts';
import type { Peers } from './peers.ts';
import type { ReadModels } from './projector.ts';

/** The AI SDK and its providers load on the first AI call, not at every start (docs/operations.md "The compiled build"). */
const aiProviderPort: AiProviderPort = async (target, request, fetch) =>
  (await import('../../adapters/ai/providers.ts')).aiProviderPort(target, request, fetch);

export type Automation = {
  connections: ConnectionStore;
  connectionProbes: ConnectionProbes;
  aiSettings: AiSettingsStore;
  ai: AiInvoker;
  triageAssessor: TriageAssessor;
  actions: ActionRegistry;
  customActions: CustomActionSync;
  responsePolicy: ResponsePolicyCommands;
  reverser: EffectReverser;
  templates: TemplateEngine;
  runbooks: RunbookStore;
  /** Stops the periodic refreshes of runbooks and custom actions. */
  stopRefreshing: () => void;
};

/**
 * Builds the action registry and loads the runbooks: custom actions first, so runbooks
 * calling them validate. Throws when the runbook directory cannot be read.
 */
export async function startAutomation(core: Core, peers: Peers, { projector, listeners }: ReadModels): Promise<Automation> {
  const { config, log, db, store, box, ids, now, audit, failure } = core;
  const { outbound, tokens, detector, exchange, extraCa } = peers;
  const connections = createConnectionStore(db, box, ids, now, config.connectionRotationOverlapMs);
  // The provider key is sealed with the same box as connection secrets (SVC_SECRET_KEY).
  const aiSettings = createAiSettingsStore({ db, box, now, defaults: config.ai.usageDefaults });
  const effects = createEffectCommands({ store });
  const responsePolicy = createResponsePolicyCommands({ store, audit, now });
  const ai = createAiInvoker({
    settings: aiSettings,
    killSwitch: config.ai.killSwitch,
    maxPromptChars: config.ai.maxPromptChars,
    port: aiProviderPort,
    fetch: outbound,
    audit,
    store,
    product: PRODUCT,
  });
  const triageAssessor = createTriageAssessor({ db, ai });
  const actions: ActionRegistry = createActionRegistry(
    [
      ...builtinActions(outbound, tokens, detector, extraCa),
      createAiTriageAction({ assessor: triageAssessor, findCase: (id) => findCase(db, id) }),
      createMcpCall({ outbound, resolveConnection: connections.resolveByName }),
      createAiAgentAction({ ai, outbound }),
      ...responseActions({
        registry: () => actions,
        policy: responsePolicy.inForce,
        effects,
        reverser: () => reverser,
        resolveConnection: connections.resolveByName,
        caseSeverity: async (caseId) => (await db.selectFrom('cases').select('severity').where('id', '=', caseId).executeTakeFirst())?.severity ?? null,
        openEffects: async (effectType, targetType, target) =>
          (await unresolvedEffectsOn(db, effectType, targetType, target)).map((e) => ({ id: e.id, adapterId: e.adapter_id, handle: e.handle })),
        waitFor: (position) => projector.waitFor(position),
        now,
      }),
    ],
    config.installedProducts,
  );
  const reverser = createEffectReverser({ effects, audit, actions, resolveConnection: connections.resolveByName, now });
  const customActions = createCustomActionSync({
    db,
    actions,
    actionDeps: { fetch: outbound, tokens },
    onInvalid: (name, issues) => log.warn({ action: name, issues }, 'custom action left out: its stored spec does not validate'),
  });
  listeners.customActions = customActions;
  await customActions.refresh();
  const customActionRefresh = setInterval(
    () => customActions.refresh().catch(failure('runbooks.refresh_failed', 'custom action refresh failed')),
    config.runbookRefreshMs,
  );
  const connectionProbes = createConnectionProbes({
    outbound,
    tokens,
    exchange,
    detector,
    timeoutMs: config.connectionTestTimeoutMs,
    now: () => now().getTime(),
    extraCa,
  });
  const templates = createTemplateEngine();
  const { store: runbooks, report } = await loadRunbooks({ db, actions, templates, dir: config.runbooksDir, now });
  log.info({ created: report.created, updated: report.updated, skipped: report.skipped }, 'runbooks loaded');
  for (const refused of report.errors) log.warn({ file: refused.file, errors: refused.errors }, 'runbook file refused');
  const runbookRefresh = setInterval(() => runbooks.refresh().catch(failure('runbooks.refresh_failed', 'runbook refresh failed')), config.runbookRefreshMs);
  return {
    connections,
    connectionProbes,
    aiSettings,
    ai,
    triageAssessor,
    actions,
    customActions,
    responsePolicy,
    reverser,
    templates,
    runbooks,
    stopRefreshing: () => {
      clearInterval(runbookRefresh);
      clearInterval(customActionRefresh);
    },
  };
}
