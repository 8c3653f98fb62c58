/**
 * The HTTP API (SPEC.md "Endpoints"): one Hono app under `SVC_BASE_PATH`, one error
 * handler, a request body limit, the OpenAPI 3.1 document at `/openapi.json`
 * generated from the validating schemas, webhooks authenticated by their own
 * tokens and every other route by caller tokens (CONTRACTS.md section 2).
 */
import { Hono } from 'hono';
import { except } from 'hono/combine';
import { compress } from 'hono/compress';
import { requestId } from 'hono/request-id';
import { withRequestId } from '../shared/request-context.ts';
import { describeRoute, generateSpecs, type GenerateSpecOptions } from 'hono-openapi';
import * as v from 'valibot';
import { jsonAnswer, withErrorResponses } from './openapi.ts';
import { actionRoutes } from './actions.routes.ts';
import { aiAuthoringRoutes } from './ai-authoring.routes.ts';
import { aiSettingsRoutes } from './ai-settings.routes.ts';
import { aiTriageRoutes } from './ai-triage.routes.ts';
import { alertRoutes } from './alerts.routes.ts';
import { alertBackfillRoutes } from './alert-backfill.routes.ts';
import { peerRoutes } from './peer.routes.ts';
import { peerShellRoutes } from './peer-shell.routes.ts';
import { peerApprovalRoutes } from './peer-approvals.routes.ts';
import { mcpRoutes } from './mcp.routes.ts';
import { peerAuditRoutes } from './peer-audit.routes.ts';
import { attachmentRoutes, isAttachmentUpload } from './attachments.routes.ts';
import { auditRoutes } from './audit.routes.ts';
import { authenticate } from './auth.ts';
import { evidenceRoutes } from './evidence.routes.ts';
import { authMeRoutes } from './auth-me.routes.ts';
import { alertBulkRoutes } from './alert-bulk.routes.ts';
import { caseBulkRoutes } from './case-bulk.routes.ts';
import { viewRoutes } from './views.routes.ts';
import { caseRoutes } from './cases.routes.ts';
import { consoleRoutes } from './console.routes.ts';
import { connectionRoutes } from './connections.routes.ts';
import { customActionImportRoutes, isOpenApiImport, openApiImportBodyLimit } from './custom-actions-import.routes.ts';
import { customActionRoutes } from './custom-actions.routes.ts';
import { integrationPackRoutes } from './integration-packs.routes.ts';
import { responsePolicyRoutes } from './response-policy.routes.ts';
import { effectRoutes } from './effects.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { createErrorHandler, notFoundHandler } from './errors.ts';
import { jsonGuard, urlTextGuard } from './validation.ts';
import { bodyUpTo } from './request-body.ts';
import { metricsExpositionRoute } from './metrics-exposition.routes.ts';
import { metricsRoutes } from './metrics.routes.ts';
import { diagnosticsRoutes } from './diagnostics.routes.ts';
import { retentionRoutes } from './retention.routes.ts';
import { attackRoutes } from './attack.routes.ts';
import { ticketRoutes } from './tickets.routes.ts';
import { notificationRoutes } from './notifications.routes.ts';
import { observableRoutes } from './observables.routes.ts';
import { caseAlertRoutes } from './case-alerts.routes.ts';
import { caseMergeRoutes } from './case-merge.routes.ts';
import { customFieldRoutes } from './custom-fields.routes.ts';
import { searchRoutes } from './search.routes.ts';
import { caseReportRoutes } from './case-report.routes.ts';
import { caseTemplateRoutes } from './case-templates.routes.ts';
import { webhookSourceRoutes } from './webhook-sources.routes.ts';
import { resolverRoutes } from './resolvers.routes.ts';
import { runbookSchemaRoute } from './runbook-schema.routes.ts';
import { runbookRoutes } from './runbooks.routes.ts';
import { runRoutes } from './runs.routes.ts';
import { taskRoutes } from './tasks.routes.ts';
import { warRoomRoutes } from './war-room.routes.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { chatInteractionRoutes } from './chat-interactions.routes.ts';

export function createApp(deps: HttpDeps) {
  const api = new Hono<AppEnv>();
  api.use('*', deps.metrics.api.middleware);
  // Attachment uploads stream under their own, larger cap (attachments.routes.ts), and an
  // OpenAPI import has its own limit sized to SVC_MAX_OPENAPI_KB (custom-actions-import.routes.ts);
  // every other request is held to SVC_MAX_BODY_BYTES.
  api.use('*', except([isAttachmentUpload, isOpenApiImport], bodyUpTo(deps.maxBodyBytes)));
  api.use('*', openApiImportBodyLimit(deps));
  api.get(
    '/healthz',
    describeRoute({
      summary: 'Liveness: the API process answers',
      tags: ['health'],
      security: [],
      responses: { 200: jsonAnswer(v.strictObject({ status: v.literal('ok') }), 'Alive') },
    }),
    (c) => c.json({ status: 'ok' }),
  );
  api.route('/', metricsExpositionRoute(deps));
  api.route('/', runbookSchemaRoute());
  // Before webhookRoutes: its `/webhooks/:slug` would take this path for a source slug.
  api.route('/', chatInteractionRoutes(deps));
  api.route('/', webhookRoutes(deps));

  const authed = new Hono<AppEnv>();
  authed.use('*', authenticate({ verifier: deps.verifier, users: deps.users, basePath: deps.basePath }));
  authed.use('*', urlTextGuard, jsonGuard('refuse', deps.maxJsonDepth));
  authed.route('/', authMeRoutes());
  authed.route('/', viewRoutes(deps));
  authed.route('/', caseBulkRoutes(deps));
  authed.route('/', caseRoutes(deps));
  authed.route('/', alertBulkRoutes(deps));
  authed.route('/', alertRoutes(deps));
  authed.route('/', alertBackfillRoutes(deps));
  authed.route('/', peerRoutes(deps));
  authed.route('/', peerShellRoutes(deps));
  authed.route('/', peerApprovalRoutes(deps));
  // The MCP tools run these very routes in process, with the inputs /openapi.json declares for them (adapters/mcp-server/).
  authed.route(
    '/',
    mcpRoutes({ ...deps, app: { fetch: (request, env) => root.fetch(request, env), basePath: deps.basePath }, openApi: () => openApiDocument() }),
  );
  authed.route('/', peerAuditRoutes(deps));
  authed.route('/', runRoutes(deps));
  authed.route('/', runbookRoutes(deps));
  authed.route('/', actionRoutes(deps));
  authed.route('/', connectionRoutes(deps));
  authed.route('/', customActionImportRoutes(deps));
  authed.route('/', customActionRoutes(deps));
  authed.route('/', integrationPackRoutes(deps));
  authed.route('/', responsePolicyRoutes(deps));
  authed.route('/', effectRoutes(deps));
  authed.route('/', notificationRoutes(deps));
  authed.route('/', observableRoutes(deps));
  authed.route('/', caseAlertRoutes(deps));
  authed.route('/', caseMergeRoutes(deps));
  authed.route('/', customFieldRoutes(deps));
  authed.route('/', searchRoutes(deps));
  authed.route('/', caseReportRoutes(deps));
  authed.route('/', taskRoutes(deps));
  authed.route('/', warRoomRoutes(deps));
  authed.route('/', attachmentRoutes(deps));
  authed.route('/', evidenceRoutes(deps));
  authed.route('/', resolverRoutes(deps));
  authed.route('/', caseTemplateRoutes(deps));
  authed.route('/', webhookSourceRoutes(deps));
  authed.route('/', auditRoutes(deps));
  authed.route('/', metricsRoutes(deps));
  authed.route('/', diagnosticsRoutes(deps));
  authed.route('/', retentionRoutes(deps));
  authed.route('/', attackRoutes(deps));
  authed.route('/', aiSettingsRoutes(deps));
  authed.route('/', aiTriageRoutes(deps));
  authed.route('/', aiAuthoringRoutes(deps));
  authed.route('/', ticketRoutes(deps));

  const openApiOptions = {
    documentation: {
      openapi: '3.1.0',
      info: { title: 'svc incident-response service', version: '0.1.0' },
      servers: [{ url: deps.basePath || '/' }],
      components: {
        // Every route outside the caller-token routes states which of these it takes, so a
        // generated client sends the right credential (issue 47).
        securitySchemes: {
          callerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          webhookToken: { type: 'apiKey', in: 'header', name: 'X-Svc-Token', description: "A webhook source's token, or the detector bootstrap secret" },
          webhookBearer: { type: 'http', scheme: 'bearer', description: 'The same webhook token as `Authorization: Bearer`' },
          pagerSignature: { type: 'apiKey', in: 'header', name: 'X-Pager-Signature', description: "A pager_a source: the vendor's HMAC-SHA256 of the body" },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN; no credential when it is unset' },
          chatSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Chat-Signature',
            description: "chat_a's v0 HMAC-SHA256 over the timestamp (X-Chat-Request-Timestamp) and the body; the vendor's X-Slack-* names are accepted too",
          },
        },
      },
      security: [{ callerToken: [] }],
    },
    defaultValidationErrorResponse: false,
    // Routes are documented by their describeRoute, whatever their path; /schemas/runbook.json ends like a file.
    excludeStaticFile: false,
  } satisfies Partial<GenerateSpecOptions>;
  // Generated once, on the first request, when every route is registered.
  let openApi: Promise<unknown> | null = null;
  const openApiDocument = () =>
    (openApi ??= generateSpecs(api, openApiOptions).then((doc) => withErrorResponses(doc as Parameters<typeof withErrorResponses>[0])));
  api.get('/openapi.json', async (c) => c.json(await openApiDocument()));
  api.route('/', authed);

  // The console first: with an empty SVC_BASE_PATH the authenticated routes' middleware
  // would otherwise claim its paths, and the console's files need no caller token.
  const root = new Hono<AppEnv>();
  // Every answer names its request (X-Request-Id: the caller's, when it is at most 255 of
  // [A-Za-z0-9_=-], so it cannot forge a log line or a header; else a new UUID), and every
  // log line written while serving it says the same (runtime/logger.ts).
  root.use('*', requestId());
  root.use('*', (c, next) => withRequestId(c.get('requestId'), next));
  // gzip or deflate as the caller accepts, for answers whose type compresses (JSON, text, the
  // console's scripts) unless their length is known and under 1 KiB; event streams and binary
  // files go as they are.
  root.use('*', compress());
  root.route(
    deps.publicPrefix,
    consoleRoutes({
      consoleDir: deps.consoleDir,
      publicPrefix: deps.publicPrefix,
      basePath: deps.basePath,
      caseStatuses: deps.caseConfig.statuses,
      caseSeverities: deps.caseConfig.severities,
    }),
  );
  root.route(deps.basePath || '/', api);
  const onError = createErrorHandler((error, context) => deps.logError(error, context));
  root.onError(onError);
  api.onError(onError);
  root.notFound(notFoundHandler);
  return root;
}
