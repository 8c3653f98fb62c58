/**
 * Boots the service (CONTRACTS.md section 1): database and migrations, identity,
 * secrets, event store, projector, runbooks, HTTP API and worker per `SVC_ROLE`.
 * Returns a handle whose `close()` stops everything in order.
 */
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { serve, type ServerType } from '@hono/node-server';
import type { Logger } from 'pino';
import { builtinActions, createActionRegistry, type ActionRegistry } from '../adapters/action-registry/registry.ts';
import { responseActions } from '../adapters/effects/response-actions.ts';
import { unresolvedEffectsOn } from '../projections/effects/effects.queries.ts';
import { createTokenSource } from '../adapters/actions/oauth2-token.ts';
import { createExchangeClient } from '../adapters/exchange/client.ts';
import { createDetectorClient } from '../adapters/detector/client.ts';
import { createIdentityServiceClient } from '../adapters/identity-service/client.ts';
import { createApprovalDefaults } from '../adapters/identity-service/approval-defaults.ts';
import { createBackfill } from '../adapters/commands/backfill.ts';
import { createConnectionProbes } from '../adapters/connections/probes.ts';
import { createGuardedFetch } from '../adapters/outbound/guarded-fetch.ts';
import { createChatIdentityLinks } from '../adapters/chat/identity-links.ts';
import { createIdempotencyStore } from '../adapters/http/mcp-server/idempotency.ts';
import { createTicketMirror } from '../adapters/commands/ticket-mirror.ts';
import { createTicketPoller, startTicketLoop } from './worker/ticket-poll.ts';
import { createTicketOutbox } from './worker/ticket-outbox.ts';
import { createPresenceRoster } from '../adapters/presence/roster.ts';
import { caseConfigFrom } from '../adapters/commands/case-config.ts';
import { createCaseCommands } from '../adapters/commands/cases.ts';
import { createCaseTemplateCommands } from '../adapters/commands/case-templates.ts';
import { loadCaseTemplates } from '../adapters/case-templates/catalog.ts';
import { createObservableCommands } from '../adapters/commands/observables.ts';
import { createCustomActionCommands } from '../adapters/commands/custom-actions.ts';
import { customActionsProjection } from '../projections/custom-actions/custom-actions.projection.ts';
import { integrationPacksProjection } from '../projections/integration-packs/integration-packs.projection.ts';
import { responsePolicyProjection } from '../projections/response-policy/response-policy.projection.ts';
import { effectsProjection } from '../projections/effects/effects.projection.ts';
import { autoTriageProjection } from '../projections/ai/auto-triage.projection.ts';
import { createEffectCommands } from '../adapters/commands/effects.ts';
import { createEffectReverser } from '../adapters/effects/reversal.ts';
import { startEffectExpiry } from './worker/effect-expiry.ts';
import { startAutoTriage } from './worker/auto-triage.ts';
import { createResponsePolicyCommands } from '../adapters/commands/response-policy.ts';
import { unfinishedRuns } from '../projections/runs/runs.queries.ts';
import { createIntegrationPackCommands } from '../adapters/commands/integration-packs.ts';
import { connectionKinds } from '../adapters/connections/kinds.ts';
import { createCustomActionSync, type CustomActionSync } from './custom-action-sync.ts';
import { createCaseAlertCommands } from '../adapters/commands/case-alerts.ts';
import { createAlertIntake } from '../adapters/commands/intake.ts';
import { createRunBacklog } from '../adapters/commands/run-backlog.ts';
import { createRunCommands } from '../adapters/commands/runs.ts';
import { createTaskCommands } from '../adapters/commands/tasks.ts';
import { createCaseFileCommands } from '../adapters/commands/case-files.ts';
import { createFilesystemStore } from '../adapters/attachments/filesystem.ts';
import { createSecretBox } from '../adapters/connections/secret-box.ts';
import { createConnectionStore } from '../adapters/connections/store.ts';
import { createAiSettingsStore } from '../adapters/ai/settings-store.ts';
import { createAiInvoker } from '../adapters/ai/invoke.ts';
import { aiProviderPort } from '../adapters/ai/providers.ts';
import { createCaseTriage, createTriageAssessor } from '../adapters/ai/case-triage.ts';
import { createAiTriageAction } from '../adapters/ai/triage-action.ts';
import { createMcpCall } from '../adapters/mcp/call-action.ts';
import { createAiAgentAction } from '../adapters/ai/agent-action.ts';
import { createRunbookDrafting } from '../adapters/ai/runbook-drafting.ts';
import { createRunExplainer } from '../adapters/ai/run-explanation.ts';
import { PRODUCT } from '../adapters/http/peer.routes.ts';
import { createWebhookSourceStore } from '../adapters/webhook-sources/store.ts';
import { upgradeNotice } from '../adapters/db/embedded-upgrade.ts';
import { openDatabase, type OpenedDatabase } from '../adapters/db/connect.ts';
import { createApp } from '../adapters/http/app.ts';
import { createJtiStore } from '../adapters/identity/jti-store.ts';
import { parsePermissionMatrix } from '../adapters/identity/permissions.ts';
import { createUserDirectory } from '../adapters/identity/users.ts';
import { createTokenVerifier } from '../adapters/identity/verifier.ts';
import { createTemplateEngine } from '../adapters/templates/liquid.ts';
import { alertsProjection } from '../projections/alerts/alerts.projection.ts';
import { casesProjection } from '../projections/cases/cases.projection.ts';
import { findCase, findCaseContext } from '../projections/cases/cases.queries.ts';
import { createProjector, type Projector } from '../projections/projector.ts';
import { notificationsProjection } from '../projections/notifications/notifications.projection.ts';
import { observablesProjection } from '../projections/observables/observables.projection.ts';
import { runsProjection } from '../projections/runs/runs.projection.ts';
import { auditProjection } from '../projections/audit/audit.projection.ts';
import { createAuditLog } from '../adapters/commands/audit.ts';
import { createApiMetrics } from '../adapters/metrics/api-metrics.ts';
import { startMetricsServer, type MetricsServer } from './metrics-server.ts';
import { listenError } from './listen-error.ts';
import { createWorkerMetrics, type WorkerMetrics } from './worker/worker-metrics.ts';
import { createErrorCounts, type ErrorClass } from '../adapters/diagnostics/error-counts.ts';
import { createDiagnostics, serviceVersion } from './diagnostics.ts';
import { taskNotificationsProjection } from '../projections/notifications/task-notifications.projection.ts';
import { tasksProjection } from '../projections/tasks/tasks.projection.ts';
import { attachmentsProjection } from '../projections/attachments/attachments.projection.ts';
import { evidenceProjection } from '../projections/evidence/evidence.projection.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './migrate.ts';
import { openEventStore } from './event-store.ts';
import { identitySource } from './identity-source.ts';
import { readCaFile } from './outbound-ca.ts';
import { loadRunbooks } from './runbook-loader.ts';
import { loadSecretKey } from './secret-key.ts';
import { startWorker, wakesWorker, type Worker } from './worker/worker.ts';
import { startScheduleTicker, type ScheduleTicker } from './worker/schedule-tick.ts';
import { trackInFlight, type InFlight } from './in-flight.ts';
import { createRetentionSweeper, startRetentionLoop } from './worker/retention-sweep.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import { createRetentionCommands } from '../adapters/commands/retention.ts';
import { createPageAcks } from '../adapters/commands/page-acks.ts';
import { createRunCaseEffects } from '../adapters/commands/run-case-effects.ts';
import { ticketsProjection } from '../projections/tickets/tickets.projection.ts';
import { ticketOutboxProjection } from '../projections/tickets/outbox.projection.ts';
import { retentionProjection } from '../projections/retention/retention.projection.ts';
import { pagesProjection } from '../projections/cases/pages.projection.ts';
import { milestonesProjection } from '../projections/peer/milestones.projection.ts';
import { resolveRetentionPolicy, retentionCutoff } from '../domain/retention/policy.ts';
import { publishLiveUpdates } from '../projections/live/publisher.ts';
import { startLiveBus, type LiveBus } from '../adapters/live/bus.ts';
import { createLiveHub, type LiveHub } from '../adapters/live/hub.ts';
import { attachLiveSocket } from '../adapters/http/live-socket.ts';
import { answerClientErrors } from '../adapters/http/client-errors.ts';
import { systemClock, type Clock } from '../adapters/shared/clock.ts';

/** How long shutdown lets requests in flight finish before closing the database, ms. */
const SHUTDOWN_GRACE_MS = 15_000;

export type Service = {
  url: string | null;
  /**
   * The API's handler as the server calls it (null without an API): a fetch `Request` in, its
   * `Response` out, with no socket. Tests call the API in process through it.
   */
  request: ((request: Request) => Promise<Response>) | null;
  /** The worker's metrics endpoint (SVC_WORKER_METRICS_PORT), null without a worker. */
  workerMetricsUrl: () => string | null;
  opened: OpenedDatabase;
  projector: Projector;
  close: () => Promise<void>;
};

/**
 * What a caller may swap in: the clock (tests move a manual one), and `listen` false to
 * build the API without opening its socket (no live WebSocket then; `request` serves it).
 */
export type ServiceOptions = { clock?: Clock; listen?: boolean };

export async function startService(config: Config, env: NodeJS.ProcessEnv, log: Logger, options: ServiceOptions = {}): Promise<Service> {
  const identity = await identitySource(config, env, log);
  const now = options.clock ?? systemClock;
  const errorCounts = createErrorCounts(now);
  /** Logs a failure and counts it by class for `GET /diagnostics`. */
  const failure =
    (type: ErrorClass, message: string) =>
    (error: unknown, context: Record<string, unknown> = {}) => {
      errorCounts.record(type);
      log.error({ err: error, ...context }, message);
    };
  const opened = await openDatabase(
    config.databaseUrl
      ? {
          databaseUrl: config.databaseUrl,
          poolSize: config.dbPoolSize,
          poolIdleMs: config.dbPoolIdleMs,
          onConnectionLost: failure('database.connection_lost', 'the database server ended a connection'),
        }
      : { dataDir: config.dataDir },
  );
  const { db } = opened;
  const upgraded = upgradeNotice(opened.dataDir);
  if (upgraded) log.info(upgraded);
  await migrateToLatest(db);
  const box = createSecretBox(loadSecretKey(env, config.dataDir));
  const ids = () => randomUUID();
  const connections = createConnectionStore(db, box, ids, now, config.connectionRotationOverlapMs);
  // The provider key is sealed with the same box as connection secrets (SVC_SECRET_KEY).
  const aiSettings = createAiSettingsStore({ db, box, now, defaults: config.ai.usageDefaults });
  const events = await openEventStore(config.eventStore, db);
  const { store } = events;

  let worker: Worker | null = null;
  // Declared before the projector, whose batches ask it whether anyone listens here.
  let hub: LiveHub | null = null;
  let metricsServer: MetricsServer | null = null;
  let workerMetrics: WorkerMetrics | null = null;
  let scheduleTicker: ScheduleTicker | null = null;
  let customActions: CustomActionSync | null = null;
  let livePublishing: Promise<void> = Promise.resolve();
  let retentionLoop: ReturnType<typeof startRetentionLoop> | null = null;
  let ticketLoop: ReturnType<typeof startTicketLoop> | null = null;
  let effectExpiry: ReturnType<typeof startEffectExpiry> | null = null;
  let autoTriage: ReturnType<typeof startAutoTriage> | null = null;
  const vacuum =
    opened.engine === 'pglite' && config.embeddedVacuumIntervalMs > 0
      ? startEmbeddedVacuum(db, config.embeddedVacuumIntervalMs, failure('database.vacuum_failed', 'vacuum of the embedded queue tables failed'))
      : null;
  const retentionPolicy = resolveRetentionPolicy(config.retention);
  const files = createFilesystemStore(join(config.dataDir, 'attachments'));
  const projector = createProjector(
    db,
    store,
    [
      casesProjection,
      alertsProjection,
      runsProjection,
      auditProjection,
      notificationsProjection,
      observablesProjection,
      tasksProjection,
      taskNotificationsProjection,
      attachmentsProjection,
      evidenceProjection,
      pagesProjection,
      ticketsProjection,
      ticketOutboxProjection,
      retentionProjection,
      customActionsProjection,
      integrationPacksProjection,
      responsePolicyProjection,
      effectsProjection,
      autoTriageProjection,
      // After runsProjection: it reads the gates that projection settles in the same batch.
      milestonesProjection,
    ],
    {
      pollIntervalMs: config.pollIntervalMs,
      transaction: opened.pipelinedTransaction,
      onError: failure('projector.batch_failed', 'projector batch failed'),
      onAdvance: (applied) => {
        if (wakesWorker(applied)) worker?.wake();
        // A custom action saved, enabled or disabled anywhere reaches this process's registry.
        if (customActions?.touches(applied)) customActions.refresh().catch(failure('runbooks.refresh_failed', 'custom action refresh failed'));
        // On PGlite this process is the only one that can listen, so frames nobody here
        // holds a socket for would cost queries for nothing; a server has other processes.
        if (opened.embedded !== null && (hub?.size() ?? 0) === 0) return;
        // In order, one batch after the other; a failure loses frames, never a projection.
        livePublishing = livePublishing.then(() => publishLiveUpdates(db, applied)).catch(failure('live.bus_failed', 'live update publish failed'));
      },
    },
  );
  projector.start();

  const templates = createTemplateEngine();
  const extraCa = config.outbound.caFile === null ? null : readCaFile(config.outbound.caFile);
  const outbound = createGuardedFetch({
    allowPrivate: config.outbound.allowPrivate,
    allowedHosts: config.outbound.peerHosts,
    exchangeOrigin: config.outbound.exchangeOrigin,
    ...(extraCa === null ? {} : { extraCa }),
  });
  if (config.outbound.allowPrivate)
    log.warn('SVC_ALLOW_PRIVATE_TARGETS is on: outbound HTTP may reach private, loopback and metadata addresses (development only)');
  const tokens = createTokenSource(outbound, () => now().getTime());
  const exchange = createExchangeClient(config.exchange, tokens);
  const detector = createDetectorClient(outbound, exchange);
  const identityService = createIdentityServiceClient({ outbound, exchange, settings: config.identityService });
  const approvalDefaults = createApprovalDefaults({
    read: identityService.approvalSettings,
    ttlMs: config.approvalSettingsTtlMs,
    now,
    onUnavailable: (error) => {
      // Without SVC_IDENTITY_URL the 24 hours are the configured behaviour, not a failure.
      if (error.reason !== 'not_configured')
        log.warn({ reason: error.reason, err: error }, 'approval settings unreadable: the gate deadline falls back to 24 hours');
    },
  });
  const audit = createAuditLog({ store, ids, now });
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
  customActions = createCustomActionSync({
    db,
    actions,
    actionDeps: { fetch: outbound, tokens },
    onInvalid: (name, issues) => log.warn({ action: name, issues }, 'custom action left out: its stored spec does not validate'),
  });
  // Before the runbooks load, so runbooks calling custom actions validate.
  await customActions.refresh();
  const customActionRefresh = setInterval(
    () => customActions?.refresh().catch(failure('runbooks.refresh_failed', 'custom action refresh failed')),
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
  const { store: runbooks, report } = await loadRunbooks({ db, actions, templates, dir: config.runbooksDir, now });
  log.info({ created: report.created, updated: report.updated, skipped: report.skipped }, 'runbooks loaded');
  for (const refused of report.errors) log.warn({ file: refused.file, errors: refused.errors }, 'runbook file refused');
  const runbookRefresh = setInterval(() => runbooks.refresh().catch(failure('runbooks.refresh_failed', 'runbook refresh failed')), config.runbookRefreshMs);

  const caseConfig = caseConfigFrom(config);
  const permissions = parsePermissionMatrix(config.permissionsJson);
  const cases = createCaseCommands({ store, db, config: caseConfig, ids, now, permissions, audit });
  const caseTriage = createCaseTriage({ assessor: triageAssessor, cases, audit });
  const ticketMirror = createTicketMirror({
    store,
    db,
    cases,
    audit,
    caseConfig,
    inboundStatusMap: async (name) => ((await connections.configByName(name))?.inbound_status_map ?? {}) as Record<string, string>,
    ids,
    now,
  });
  const { catalog: caseTemplates, refused: refusedTemplates } = loadCaseTemplates(config.caseTemplatesDir);
  log.info({ templates: caseTemplates.list().map((t) => t.id) }, 'case templates loaded');
  for (const refused of refusedTemplates) log.warn({ file: refused.file, errors: refused.errors }, 'case template file refused');
  const intake = createAlertIntake({ store, db, config: caseConfig, alertRunbooks: runbooks.alertRunbooks, ids, now, cacheEntries: config.intakeCacheEntries });
  const runs = createRunCommands({ store, runbook: runbooks.get, ids, now });

  let server: ServerType | null = null;
  let bus: LiveBus | null = null;
  let liveSocket: { close: () => Promise<void> } | null = null;
  let inFlight: InFlight<Parameters<ReturnType<typeof createApp>['fetch']>, Response> | null = null;
  let url: string | null = null;
  let request: Service['request'] = null;
  /** Stops everything started so far, in order; also what a failed start-up runs before it rethrows. */
  const close = async () => {
    await liveSocket?.close();
    if (server) await new Promise<void>((r) => server?.close(() => r()));
    await inFlight?.idle(SHUTDOWN_GRACE_MS);
    clearInterval(runbookRefresh);
    clearInterval(customActionRefresh);
    await scheduleTicker?.stop();
    await retentionLoop?.stop();
    await ticketLoop?.stop();
    await effectExpiry?.stop();
    await autoTriage?.stop();
    await worker?.stop();
    await metricsServer?.close();
    hub?.close();
    await bus?.close();
    await outbound.close();
    await events.settle();
    await projector.stop();
    await vacuum?.stop();
    await livePublishing;
    await customActions?.idle();
    await events.close();
    await opened.close();
  };
  try {
    if (config.role !== 'worker') {
      const verifier = await createTokenVerifier({
        issuer: identity.issuer,
        audience: config.audience,
        jwks: identity.jwks,
        jtiStore: createJtiStore(db, { now }),
        now,
      });
      const waitFor = (position: number | null) => (position === null ? Promise.resolve() : projector.waitFor(position));
      const users = createUserDirectory(db, now);
      bus = await startLiveBus({
        db,
        embedded: opened.embedded,
        databaseUrl: config.databaseUrl,
        reconnectMs: 1000,
        onError: failure('live.bus_failed', 'live update bus failed'),
      });
      hub = createLiveHub({
        bus,
        roster: createPresenceRoster(config.presenceHeartbeatSeconds * 2000),
        now,
        expiryCheckMs: config.presenceHeartbeatSeconds * 500,
        onError: failure('live.bus_failed', 'presence expiry failed'),
      });
      const app = createApp({
        db,
        now,
        basePath: config.basePath,
        maxBodyBytes: config.maxBodyBytes,
        maxJsonDepth: config.maxJsonDepth,
        maxOpenApiBytes: config.maxOpenApiKb * 1024,
        detectorBootstrapSecret: config.detectorBootstrapSecret,
        caseConfig,
        ackSla: config.ackSla,
        caseListTotalCap: config.caseListTotalCap,
        presence: hub.presence,
        presenceHeartbeatSeconds: config.presenceHeartbeatSeconds,
        publicPrefix: config.publicPrefix,
        consoleDir: config.consoleDir,
        mergedCaseStatuses: config.mergedStatuses,
        environment: config.environment,
        identityService,
        observables: createObservableCommands({ store, ids, now }),
        caseAlerts: createCaseAlertCommands({ store, db, now, ids, config: caseConfig }),
        tasks: createTaskCommands({ store, db, ids, now, permissions }),
        caseFiles: createCaseFileCommands({ store, db, ids, now }),
        files,
        attachmentMaxBytes: config.attachmentMaxBytes,
        permissions,
        verifier,
        users,
        cases,
        caseTemplates,
        caseTemplateCommands: createCaseTemplateCommands({ store, db, config: caseConfig, ids, now, waitFor }),
        intake,
        // Sampled as often as the worker polls: the lag is not known more finely than that.
        runBacklog: createRunBacklog({ db, now, maxLagMs: config.intakeMaxRunLagMs, sampleMs: config.pollIntervalMs }),
        backfill: createBackfill({ intake, detector, severities: config.severities, pageTimeoutMs: config.peerTimeoutMs }),
        backfillLimits: config.backfill,
        runs,
        runbooks,
        runbookGit: config.runbooksGit && { source: config.runbooksGit, proxy: config.proxy },
        actions,
        connections,
        customActions: createCustomActionCommands({ store, audit, ids, now }),
        responsePolicy,
        reverser,
        integrationPacks: {
          dir: config.packsDir,
          verify: { publicKey: config.packPublicKey, serviceVersion: serviceVersion(), connectionKinds },
          commands: createIntegrationPackCommands({ store, audit, ids, now, unfinishedRuns: () => unfinishedRuns(db) }),
          test: { resolveConnection: connections.resolveByName, actionDeps: { fetch: outbound, tokens }, newId: ids, now },
        },
        connectionProbes,
        webhookSources: createWebhookSourceStore(db, box, ids, now),
        audit,
        metrics: {
          api: createApiMetrics(() => projector.position()),
          token: config.metrics.token,
          windowDays: config.metricsWindowDays,
          atRiskMinutes: config.slaAtRiskMinutes,
        },
        waitFor,
        retentionPolicy,
        pageAcks: createPageAcks({ db, cases, closedStatuses: caseConfig.closedStatuses }),
        ticketMirror,
        chatLinks: createChatIdentityLinks(db, { codeTtlSeconds: config.chat.linkCodeTtlSeconds, now }),
        mcpIdempotency: createIdempotencyStore(db, { now, keepMs: config.mcpIdempotencyMs }),
        aiSettings,
        caseTriage,
        aiKillSwitch: config.ai.killSwitch,
        runbookDrafting: createRunbookDrafting({ ai, actions, runbooks }),
        runExplainer: createRunExplainer({ ai }),
        chatCommand: config.chat.command,
        outbound,
        logError: failure('http.internal_error', 'unhandled error'),
        diagnostics: createDiagnostics({
          db,
          env,
          errors: errorCounts,
          now,
          health: {
            projector: async () => ({ position: projector.position(), head: await store.headPosition() }),
            worker: {
              running: config.role !== 'api',
              beating: () => workerMetrics !== null && now().getTime() - workerMetrics.lastBeatAt() <= config.workerLeaseMs,
            },
          },
        }),
      });
      const tracked = trackInFlight(app.fetch);
      inFlight = tracked;
      request = (input) => Promise.resolve(tracked.handler(input));
      if (options.listen !== false) {
        server = await new Promise<ServerType>((resolve, reject) => {
          const s = serve({ fetch: tracked.handler, port: config.port, hostname: config.host }, () => resolve(s));
          s.once('error', (error) => reject(listenError(error, { host: config.host, port: config.port, variable: 'PORT' })));
          answerClientErrors(s as HttpServer);
        });
        liveSocket = attachLiveSocket(server as HttpServer, {
          db,
          now,
          basePath: config.basePath,
          verifier,
          users,
          permissions,
          hub,
          heartbeatSeconds: config.presenceHeartbeatSeconds,
          sessionMaxMs: config.wsSessionMaxMs,
          logError: failure('http.internal_error', 'unhandled WebSocket error'),
        });
        const address = server.address() as AddressInfo;
        url = `http://${config.host}:${address.port}${config.basePath}`;
        log.info({ url }, 'API listening');
      }
    }

    if (config.role !== 'api') {
      scheduleTicker = startScheduleTicker({
        db,
        store,
        runnable: runbooks.runnable,
        now,
        intervalMs: config.scheduleTickMs,
        onError: failure('schedule.tick_failed', 'schedule tick failed'),
      });
      if (retentionCutoff(retentionPolicy, now()) !== null) {
        const sweeper = createRetentionSweeper({
          db,
          policy: retentionPolicy,
          closedStatuses: config.closedStatuses,
          commands: createRetentionCommands({ db, store, audit, now }),
          files,
          waitFor: (position) => projector.waitFor(position),
          now,
          holdMs: config.workerLeaseMs,
        });
        retentionLoop = startRetentionLoop(sweeper, db, now, failure('retention.sweep_failed', 'retention sweep failed'));
      } else log.warn({ cause: retentionPolicy.cause, enabled: retentionPolicy.enabled }, 'retention sweeping is off');
      const ticketWork = {
        db,
        mirror: ticketMirror,
        resolveConnection: connections.resolveByName,
        outbound,
        now,
        batch: config.ticketPoll.batch,
        timeoutMs: config.ticketPoll.timeoutMs,
        onError: failure('tickets.poll_failed', 'ticket mirroring failed'),
      };
      const ticketOutbox = createTicketOutbox(ticketWork);
      const ticketPoller = createTicketPoller({
        ...ticketWork,
        closedStatuses: config.closedStatuses,
        headPosition: () => store.headPosition(),
        waitFor: (position) => projector.waitFor(position),
      });
      ticketLoop = startTicketLoop(
        [ticketOutbox.drain, ticketPoller.tick],
        config.ticketPoll.tickMs,
        failure('tickets.poll_failed', 'ticket mirroring failed'),
      );
      effectExpiry = startEffectExpiry({
        db,
        reverser,
        now,
        leaseMs: config.workerLeaseMs,
        pollIntervalMs: config.pollIntervalMs,
        onError: failure('worker.step_failed', 'effect reversal failed'),
      });
      autoTriage = startAutoTriage({
        db,
        triage: caseTriage,
        cases,
        now,
        leaseMs: config.workerLeaseMs,
        pollIntervalMs: config.pollIntervalMs,
        onError: failure('worker.step_failed', 'queued AI triage failed'),
      });
      workerMetrics = createWorkerMetrics(now);
      metricsServer = await startMetricsServer({
        registry: workerMetrics.registry,
        token: config.metrics.token,
        host: config.metrics.workerHost,
        port: config.metrics.workerPort,
      });
      log.info({ url: metricsServer.url }, 'worker metrics listening');
      worker = startWorker({
        db,
        metrics: workerMetrics,
        leaseMs: config.workerLeaseMs,
        pollIntervalMs: config.pollIntervalMs,
        concurrency: config.workerConcurrency,
        onError: failure('worker.step_failed', 'worker step failed'),
        driver: {
          store: workerMetrics.metered(store),
          templates,
          actions,
          resolveConnection: connections.resolveByName,
          now,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          backoffBaseMs: config.stepBackoffBaseMs,
          gateEvaluationTries: config.gateEvaluationTries,
          maxStepVisits: config.maxStepVisits,
          approvalDeadlineHours: approvalDefaults.deadlineHours,
          caseContext: (caseId) => findCaseContext(db, caseId),
          caseEffects: createRunCaseEffects({ db, severities: config.severities, statuses: config.statuses, permissions, ids, now, audit }),
          audit,
        },
      });
    }
  } catch (error) {
    // A port in use (say) must not leave the database open: the process would never exit.
    await close().catch(() => undefined);
    throw error;
  }

  return {
    url,
    request,
    workerMetricsUrl: () => metricsServer?.url ?? null,
    opened,
    projector,
    close,
  };
}
