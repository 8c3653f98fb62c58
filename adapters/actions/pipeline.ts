/**
 * `pipeline.deploy_request` and `pipeline.await_confirmation` (SPEC.md "Action registry
 * entry", "Generic actions"; the HTTP contract we assume: docs/suite-contracts.md
 * "Pipeline"). The pipeline product is reached through a `pipeline` connection whose
 * secret is its API key, sent as a bearer token.
 *
 * - deploy_request: `POST <base_url><deploy_requests_path>` creates a deploy request for
 *   one source of one pipeline (`quarantine_source`, `drop_source`, `sample_source` with
 *   `sample_rate`, `fork_to_lake`). The pipeline product holds it pending until someone
 *   approves it there; the step should sit behind an approval gate of its own.
 * - await_confirmation: polls `GET <base_url><deploy_requests_path>?pipeline=<id>` every
 *   `poll_interval_s` until the request reads `deployed` (polling is authoritative),
 *   failing for good when it reads `rejected`, `failed` or `cancelled`, or is not listed;
 *   the step's `timeout_s` bounds the wait.
 */
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

/** Default `config.deploy_requests_path` of a `pipeline` connection. */
export const DEPLOY_REQUESTS_PATH = '/api/v1/deploy-requests';

const id = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
export const deployKinds = ['quarantine_source', 'drop_source', 'sample_source', 'fork_to_lake'] as const;

const deployInput = v.pipe(
  v.strictObject({
    pipeline: id,
    source: id,
    kind: v.picklist(deployKinds),
    sample_rate: v.optional(v.pipe(v.number(), v.gtValue(0), v.maxValue(1))),
    reason: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  }),
  v.forward(
    v.check((i) => (i.kind === 'sample_source') === (i.sample_rate !== undefined), 'sample_rate is required with kind sample_source and only with it'),
    ['sample_rate'],
  ),
);
type DeployInput = v.InferOutput<typeof deployInput>;

const awaitInput = v.strictObject({
  pipeline: id,
  request_id: id,
  poll_interval_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3600)), 15),
});
type AwaitInput = v.InferOutput<typeof awaitInput>;

/** Statuses after which a request never deploys. */
const FINAL_REFUSALS = new Set(['rejected', 'failed', 'cancelled']);

const requestShape = v.object({
  id: v.union([v.string(), v.number()]),
  status: v.string(),
  pipeline: v.optional(v.string()),
  deployed_at: v.optional(v.nullable(v.string())),
});

/** The deploy-requests URL (with `query`) of the step's `pipeline` connection and its API key; final failures when either is unusable. */
export function pipelineEndpoint(name: string, context: Pick<ActionContext, 'connection'>, query?: Record<string, string>): { url: URL; key: string } {
  const connection = requireConnection(name, context, 'pipeline');
  const path = connection.config.deploy_requests_path ?? DEPLOY_REQUESTS_PATH;
  if (typeof path !== 'string') throw new ActionFailure('connection_invalid', `${name}: config.deploy_requests_path must be a path`, false);
  if (!connection.secret) throw new ActionFailure('connection_missing', `${name}: connection '${connection.name}' has no API key`, false);
  return { url: joinUrl(name, connection.base_url, path, query), key: connection.secret };
}

/** The JSON of a 2xx answer; a non-2xx fails with the product's own `detail`/`message` when it sent one. */
async function answer(name: string, response: Response, url: URL, signal: AbortSignal): Promise<unknown> {
  const text = await readCappedText(name, response, url, signal);
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    if (response.ok) throw new ActionFailure('pipeline_bad_response', `${name}: ${url.host} answered something that is not JSON`, false);
  }
  if (response.ok) return body;
  const failure = statusFailure(name, url, response.status);
  const said = (body as { detail?: unknown; message?: unknown } | null)?.detail ?? (body as { message?: unknown } | null)?.message;
  throw new ActionFailure('pipeline_error', typeof said === 'string' ? `${failure.message}: ${said.slice(0, 300)}` : failure.message, failure.retryable);
}

const deployBody = (step: DeployInput, context: ActionContext) => ({
  pipeline: step.pipeline,
  source: step.source,
  kind: step.kind,
  ...(step.sample_rate !== undefined && { sample_rate: step.sample_rate }),
  reason: step.reason ?? `svc run ${context.runId} step ${context.stepId}`,
});

/** `pipeline.deploy_request` and `pipeline.await_confirmation` over `fetchImpl` (the guarded outbound fetch); failures are ActionFailures as the module header says. */
export function pipelineActions(fetchImpl: OutboundFetch): ActionDefinition[] {
  const deployRequest: ActionDefinition<DeployInput, { request_id: string; status: string }> = {
    name: 'pipeline.deploy_request',
    connectionKind: 'pipeline',
    risk: 'write',
    input: deployInput,
    output: v.object({ request_id: v.string(), status: v.string() }),
    async execute(step, context) {
      const { url, key } = pipelineEndpoint('pipeline.deploy_request', context);
      const response = await sendOutbound(
        'pipeline.deploy_request',
        fetchImpl,
        url,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `svc-${context.deliveryId}` },
          body: JSON.stringify(deployBody(step, context)),
        },
        context.signal,
      );
      const parsed = v.safeParse(requestShape, await answer('pipeline.deploy_request', response, url, context.signal));
      if (!parsed.success)
        throw new ActionFailure('pipeline_bad_response', `pipeline.deploy_request: ${url.host} named no deploy request id and status`, false);
      return { request_id: String(parsed.output.id), status: parsed.output.status };
    },
    async preview(step, context) {
      const { url } = pipelineEndpoint('pipeline.deploy_request', context);
      return {
        method: 'POST',
        url: url.toString(),
        headers: { authorization: `Bearer ${REDACTED}`, 'idempotency-key': `svc-${context.deliveryId}` },
        body: deployBody(step, context),
      };
    },
  };

  const awaitConfirmation: ActionDefinition<AwaitInput, { request_id: string; status: 'deployed'; deployed_at: string | null; polls: number }> = {
    name: 'pipeline.await_confirmation',
    connectionKind: 'pipeline',
    risk: 'read',
    input: awaitInput,
    output: v.object({ request_id: v.string(), status: v.literal('deployed'), deployed_at: v.nullable(v.string()), polls: v.number() }),
    async execute(step, context) {
      const { url, key } = pipelineEndpoint('pipeline.await_confirmation', context, { pipeline: step.pipeline });
      for (let polls = 1; ; polls++) {
        const response = await sendOutbound(
          'pipeline.await_confirmation',
          fetchImpl,
          url,
          { method: 'GET', headers: { authorization: `Bearer ${key}` } },
          context.signal,
        );
        const body = await answer('pipeline.await_confirmation', response, url, context.signal);
        const items = Array.isArray(body) ? body : (body as { items?: unknown } | null)?.items;
        if (!Array.isArray(items))
          throw new ActionFailure('pipeline_bad_response', `pipeline.await_confirmation: ${url.host} answered no deploy request list`, false);
        const found = items.map((i) => v.safeParse(requestShape, i)).find((p) => p.success && String(p.output.id) === step.request_id);
        if (!found?.success)
          throw new ActionFailure(
            'deploy_request_not_found',
            `pipeline.await_confirmation: deploy request ${step.request_id} is not listed for pipeline ${step.pipeline}`,
            false,
          );
        const request = found.output;
        if (request.status === 'deployed') return { request_id: step.request_id, status: 'deployed', deployed_at: request.deployed_at ?? null, polls };
        if (FINAL_REFUSALS.has(request.status)) {
          throw new ActionFailure(
            `deploy_request_${request.status}`,
            `pipeline.await_confirmation: deploy request ${step.request_id} is ${request.status}`,
            false,
          );
        }
        await pause(step.poll_interval_s * 1000, context.signal);
      }
    },
    async preview(step, context) {
      const { url } = pipelineEndpoint('pipeline.await_confirmation', context, { pipeline: step.pipeline });
      return { method: 'GET', url: url.toString(), headers: { authorization: `Bearer ${REDACTED}` }, poll_interval_s: step.poll_interval_s, until: 'deployed' };
    },
  };
  return [deployRequest, awaitConfirmation];
}

/** Waits `ms`, or fails with the step's deadline or cancellation. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted)
      return reject(
        new ActionFailure('timeout', 'pipeline.await_confirmation: aborted by the step deadline or cancellation while waiting for the deployment', true),
      );
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(new ActionFailure('timeout', 'pipeline.await_confirmation: aborted by the step deadline or cancellation while waiting for the deployment', true));
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
