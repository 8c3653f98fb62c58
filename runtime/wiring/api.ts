/**
 * The API role (SVC_ROLE `api` or `all`; SPEC.md "Endpoints"): caller-token verification,
 * the live bus and presence hub, the Hono app with what each route needs, and its socket
 * with `WS /ws` on it. Shutdown stops serving first and closes the live bus later, after
 * the worker (runtime/boot.ts).
 */
import { attackCatalogFile } from '../../adapters/attack/catalog-file.ts';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createRunbookDrafting } from '../../adapters/ai/runbook-drafting.ts';
import { createRunExplainer } from '../../adapters/ai/run-explanation.ts';
import { createChatIdentityLinks } from '../../adapters/chat/identity-links.ts';
import { createBackfill } from '../../adapters/commands/backfill.ts';
import { createCaseAlertCommands } from '../../adapters/commands/case-alerts.ts';
import { createCaseMergeCommands } from '../../adapters/commands/case-merge.ts';
import { createCaseFileCommands } from '../../adapters/commands/case-files.ts';
import { createCaseTemplateCommands } from '../../adapters/commands/case-templates.ts';
import { createCustomActionCommands } from '../../adapters/commands/custom-actions.ts';
import { createIntegrationPackCommands } from '../../adapters/commands/integration-packs.ts';
import { createObservableCommands } from '../../adapters/commands/observables.ts';
import { createPageAcks } from '../../adapters/commands/page-acks.ts';
import { createRunBacklog } from '../../adapters/commands/run-backlog.ts';
import { createTaskCommands } from '../../adapters/commands/tasks.ts';
import { connectionKinds } from '../../adapters/connections/kinds.ts';
import { createApp } from '../../adapters/http/app.ts';
import { answerClientErrors } from '../../adapters/http/client-errors.ts';
import type { HttpDeps } from '../../adapters/http/deps.ts';
import { attachLiveSocket } from '../../adapters/http/live-socket.ts';
import { createIdempotencyStore } from '../../adapters/http/mcp-server/idempotency.ts';
import { createJtiStore } from '../../adapters/identity/jti-store.ts';
import { createUserDirectory, type UserDirectory } from '../../adapters/identity/users.ts';
import { createTokenVerifier, type TokenVerifier } from '../../adapters/identity/verifier.ts';
import { startLiveBus } from '../../adapters/live/bus.ts';
import { createLiveHub, type LiveHub } from '../../adapters/live/hub.ts';
import { createApiMetrics } from '../../adapters/metrics/api-metrics.ts';
import { createPresenceRoster } from '../../adapters/presence/roster.ts';
import { createWebhookSourceStore } from '../../adapters/webhook-sources/store.ts';
import { createViewStore } from '../../adapters/views/store.ts';
import { unfinishedRuns } from '../../projections/runs/runs.queries.ts';
import { createDiagnostics } from '../diagnostics.ts';
import { serviceVersion } from '../version.ts';
import type { IdentitySource } from '../identity-source.ts';
import { trackInFlight } from '../in-flight.ts';
import { listenError } from '../listen-error.ts';
import type { Automation } from './automation.ts';
import type { CaseWork } from './cases.ts';
import type { Core } from './core.ts';
import type { Peers } from './peers.ts';
import type { ReadModels } from './projector.ts';

/** How long shutdown lets requests in flight finish before the database closes, ms. */
const SHUTDOWN_GRACE_MS = 15_000;

export type Api = {
  /** Where the API listens, with SVC_BASE_PATH; null when started without a socket. */
  url: string | null;
  /** The API's handler as the server calls it: a fetch `Request` in, its `Response` out, with no socket. */
  request: (request: Request) => Promise<Response>;
  /** Closes the socket and `WS /ws`, and waits (SHUTDOWN_GRACE_MS at most) for requests in flight. */
  stopServing: () => Promise<void>;
  /** Closes the presence hub and the live bus. */
  stopLive: () => Promise<void>;
};

export type ApiParts = {
  core: Core;
  identity: IdentitySource;
  peers: Peers;
  readModels: ReadModels;
  automation: Automation;
  work: CaseWork;
  /** Whether this install's worker beat within its lease (`GET /diagnostics`). */
  workerBeating: () => boolean;
  /** false: build the API without opening its socket (no live WebSocket then; `request` serves it). */
  listen: boolean;
};

/** Starts the API. Throws listenError's answer when the port is taken; what it opened is closed first. */
export async function startApi(parts: ApiParts): Promise<Api> {
  const { core, identity, readModels } = parts;
  const { config, db, now, failure } = core;
  const verifier = await createTokenVerifier({
    issuer: identity.issuer,
    audience: config.audience,
    jwks: identity.jwks,
    jtiStore: createJtiStore(db, { now }),
    now,
  });
  const users = createUserDirectory(db, now);
  const bus = await startLiveBus({
    db,
    embedded: core.opened.embedded,
    databaseUrl: config.databaseUrl,
    reconnectMs: 1000,
    onError: failure('live.bus_failed', 'live update bus failed'),
  });
  const hub = createLiveHub({
    bus,
    roster: createPresenceRoster(config.presenceHeartbeatSeconds * 2000),
    now,
    expiryCheckMs: config.presenceHeartbeatSeconds * 500,
    onError: failure('live.bus_failed', 'presence expiry failed'),
  });
  readModels.listeners.liveSockets = () => hub.size();
  const stopLive = async () => {
    hub.close();
    await bus.close();
  };
  const app = createApp(httpDeps(parts, { verifier, users, hub }));
  const inFlight = trackInFlight(app.fetch);
  const request = (input: Request) => Promise.resolve(inFlight.handler(input));
  if (!parts.listen) return { url: null, request, stopServing: () => inFlight.idle(SHUTDOWN_GRACE_MS), stopLive };
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: inFlight.handler, port: config.port, hostname: config.host }, () => resolve(s));
      s.once('error', (error) => reject(listenError(error, { host: config.host, port: config.port, variable: 'PORT' })));
      answerClientErrors(s as HttpServer);
    });
  } catch (error) {
    await stopLive();
    throw error;
  }
  const liveSocket = attachLiveSocket(server as HttpServer, {
    db,
    now,
    basePath: config.basePath,
    verifier,
    users,
    permissions: parts.work.permissions,
    hub,
    heartbeatSeconds: config.presenceHeartbeatSeconds,
    sessionMaxMs: config.wsSessionMaxMs,
    logError: failure('http.internal_error', 'unhandled WebSocket error'),
  });
  const address = server.address() as AddressInfo;
  const url = `http://${config.host}:${address.port}${config.basePath}`;
  core.log.info({ url }, 'API listening');
  return {
    url,
    request,
    stopServing: async () => {
      await liveSocket.close();
      await new Promise<void>((r) => server.close(() => r()));
      await inFlight.idle(SHUTDOWN_GRACE_MS);
    },
    stopLive,
  };
}

/** What the routes need (adapters/http/deps.ts), from the parts already started. */
function httpDeps(parts: ApiParts, api: { verifier: TokenVerifier; users: UserDirectory; hub: LiveHub }): HttpDeps {
  const { core, peers, readModels, automation, work } = parts;
  const { config, env, db, store, ids, now, audit, files, failure } = core;
  const { projector } = readModels;
  const { connections, ai, actions, runbooks } = automation;
  const { caseConfig, permissions, cases, intake } = work;
  const { outbound, tokens } = peers;
  const waitFor = (position: number | null) => (position === null ? Promise.resolve() : projector.waitFor(position));
  return {
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
    presence: api.hub.presence,
    presenceHeartbeatSeconds: config.presenceHeartbeatSeconds,
    publicPrefix: config.publicPrefix,
    consoleDir: config.consoleDir,
    mergedCaseStatuses: config.mergedStatuses,
    environment: config.environment,
    identityService: peers.identityService,
    observables: createObservableCommands({ store, ids, now }),
    caseAlerts: createCaseAlertCommands({ store, db, now, ids, config: caseConfig }),
    customFields: work.customFields,
    caseMerge: createCaseMergeCommands({ store, db, now, ids, config: caseConfig, waitFor, audit }),
    tasks: createTaskCommands({ store, db, ids, now, permissions }),
    caseFiles: createCaseFileCommands({ store, db, ids, now }),
    files,
    attachmentMaxBytes: config.attachmentMaxBytes,
    permissions,
    verifier: api.verifier,
    users: api.users,
    cases,
    caseTemplates: work.caseTemplates,
    caseTemplateCommands: createCaseTemplateCommands({ store, db, config: caseConfig, ids, now, waitFor }),
    intake,
    // Sampled as often as the worker polls: the lag is not known more finely than that.
    runBacklog: createRunBacklog({ db, now, maxLagMs: config.intakeMaxRunLagMs, sampleMs: config.pollIntervalMs }),
    backfill: createBackfill({ intake, detector: peers.detector, severities: config.severities, pageTimeoutMs: config.peerTimeoutMs }),
    backfillLimits: config.backfill,
    runs: work.runs,
    runbooks,
    runbookGit: config.runbooksGit && { source: config.runbooksGit, proxy: config.proxy },
    actions,
    connections,
    customActions: createCustomActionCommands({ store, audit, ids, now }),
    responsePolicy: automation.responsePolicy,
    reverser: automation.reverser,
    integrationPacks: {
      dir: config.packsDir,
      verify: { publicKey: config.packPublicKey, serviceVersion: serviceVersion(), connectionKinds },
      commands: createIntegrationPackCommands({ store, audit, ids, now, unfinishedRuns: () => unfinishedRuns(db) }),
      test: { resolveConnection: connections.resolveByName, actionDeps: { fetch: outbound, tokens }, newId: ids, now },
    },
    connectionProbes: automation.connectionProbes,
    webhookSources: createWebhookSourceStore(db, core.box, ids, now),
    views: createViewStore(db, now),
    audit,
    metrics: {
      api: createApiMetrics(() => projector.position()),
      token: config.metrics.token,
      windowDays: config.metricsWindowDays,
      atRiskMinutes: config.slaAtRiskMinutes,
    },
    waitFor,
    retentionPolicy: core.retentionPolicy,
    attackCatalog: attackCatalogFile(config.attackCatalog),
    pageAcks: createPageAcks({ db, cases, closedStatuses: caseConfig.closedStatuses }),
    ticketMirror: work.ticketMirror,
    chatLinks: createChatIdentityLinks(db, { codeTtlSeconds: config.chat.linkCodeTtlSeconds, now }),
    mcpIdempotency: createIdempotencyStore(db, { now, keepMs: config.mcpIdempotencyMs }),
    aiSettings: automation.aiSettings,
    caseTriage: work.caseTriage,
    aiKillSwitch: config.ai.killSwitch,
    runbookDrafting: createRunbookDrafting({ ai, actions, runbooks }),
    runExplainer: createRunExplainer({ ai }),
    chatCommand: config.chat.command,
    outbound,
    logError: failure('http.internal_error', 'unhandled error'),
    diagnostics: createDiagnostics({
      db,
      env,
      errors: core.errorCounts,
      now,
      health: {
        projector: async () => ({ position: projector.position(), head: await store.headPosition() }),
        worker: { running: config.role !== 'api', beating: parts.workerBeating },
      },
    }),
  };
}
