/**
 * The pipeline actions (SPEC.md "Generic actions") against a pipeline product on
 * 127.0.0.1 that follows docs/suite-contracts.md "Pipeline": the deploy request carries
 * the bearer key, the kind and, for `sample_source` only, the sample rate, and one
 * idempotency key per step; waiting polls the list until the request is deployed, fails
 * for good when it is rejected or unknown, and stops at the step's deadline.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { pipelineActions } from '../../../adapters/actions/pipeline.ts';
import { startPipelineServer } from '../../support/pipeline-server.ts';

const KEY = 'plk_7c1f0e2b9a4d4f6e8b3a';

describe('pipeline actions', () => {
  let server: Awaited<ReturnType<typeof startPipelineServer>>;
  const [deploy, confirm] = pipelineActions((url, init) => fetch(url, init)) as [ActionDefinition, ActionDefinition];
  beforeAll(async () => {
    server = await startPipelineServer(KEY);
  });
  afterAll(async () => server?.close());

  const connection = (): ResolvedConnection => ({
    id: 'p1',
    kind: 'pipeline',
    name: 'ingest',
    base_url: server.url,
    config: {},
    secret: KEY,
    previous_secret: null,
    bot_token: null,
  });
  const context = (signal: AbortSignal = AbortSignal.timeout(20_000), stepId = 'deploy', pass = 1): ActionContext => ({
    runId: 'run-9',
    stepId,
    attempt: 1,
    deliveryId: `delivery-${stepId}-${pass}`,
    caseId: null,
    connection: connection(),
    signal,
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  });
  const run = (action: ActionDefinition, input: unknown, ctx = context()) => action.execute(v.parse(action.input, input), ctx) as Promise<Record<string, any>>;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('creates a pending deploy request with the bearer key, once per delivery however often it is retried', async () => {
    const first = await run(deploy, { pipeline: 'edge-logs', source: 'fw-01', kind: 'sample_source', sample_rate: 0.1 });
    expect(first).toEqual({ request_id: expect.any(String), status: 'pending' });
    const again = await run(deploy, { pipeline: 'edge-logs', source: 'fw-01', kind: 'sample_source', sample_rate: 0.1 });
    expect(again.request_id).toBe(first.request_id);
    expect(server.requests).toHaveLength(1);
    // The step's next goto pass is another delivery: another request.
    const nextPass = await run(deploy, { pipeline: 'edge-logs', source: 'fw-01', kind: 'sample_source', sample_rate: 0.1 }, context(undefined, 'deploy', 2));
    expect(nextPass.request_id).not.toBe(first.request_id);
    expect(server.requests).toHaveLength(2);
    const [sent] = server.received.filter((r) => r.method === 'POST');
    expect(sent!.headers['idempotency-key']).toBe('svc-delivery-deploy-1');
    expect(JSON.parse(sent!.body)).toEqual({
      pipeline: 'edge-logs',
      source: 'fw-01',
      kind: 'sample_source',
      sample_rate: 0.1,
      reason: 'svc run run-9 step deploy',
    });
  });

  it('refuses a sample rate without sample_source, or none with it, before any request', () => {
    expect(v.safeParse(deploy.input, { pipeline: 'p', source: 's', kind: 'drop_source', sample_rate: 0.5 }).success).toBe(false);
    expect(v.safeParse(deploy.input, { pipeline: 'p', source: 's', kind: 'sample_source' }).success).toBe(false);
    expect(v.safeParse(deploy.input, { pipeline: 'p', source: 's', kind: 'delete_everything' }).success).toBe(false);
  });

  it('fails with the product’s own detail when it refuses', async () => {
    const error = await failure(run(deploy, { pipeline: 'unknown-pipeline', source: 's', kind: 'drop_source' }, context(undefined, 'other')));
    expect(error).toMatchObject({ type: 'pipeline_error', retryable: false });
    expect(error?.message).toContain('pipeline unknown-pipeline does not exist');
  });

  it('polls until the request is deployed', async () => {
    const { request_id } = await run(deploy, { pipeline: 'p2', source: 'dns', kind: 'quarantine_source' }, context(undefined, 'quarantine'));
    server.onPoll((polls) => polls === 2 && server.setStatus(request_id, 'deployed'));
    const done = await run(confirm, { pipeline: 'p2', request_id, poll_interval_s: 1 });
    expect(done).toEqual({ request_id, status: 'deployed', deployed_at: expect.any(String), polls: 2 });
  });

  it('fails for good on a rejected or unlisted request, and stops at the step deadline', async () => {
    const { request_id } = await run(deploy, { pipeline: 'p3', source: 'proxy', kind: 'fork_to_lake' }, context(undefined, 'fork'));
    server.setStatus(request_id, 'rejected');
    expect(await failure(run(confirm, { pipeline: 'p3', request_id, poll_interval_s: 1 }))).toMatchObject({
      type: 'deploy_request_rejected',
      retryable: false,
    });
    expect(await failure(run(confirm, { pipeline: 'p3', request_id: 'nope', poll_interval_s: 1 }))).toMatchObject({
      type: 'deploy_request_not_found',
      retryable: false,
    });
    server.setStatus(request_id, 'pending');
    expect(await failure(run(confirm, { pipeline: 'p3', request_id, poll_interval_s: 1 }, context(AbortSignal.timeout(1500))))).toMatchObject({
      type: 'timeout',
      retryable: true,
    });
  });

  it('previews without the key and without sending anything', async () => {
    const before = server.received.length;
    const shown = await deploy.preview(v.parse(deploy.input, { pipeline: 'p', source: 's', kind: 'drop_source' }), context());
    expect(shown).toMatchObject({ method: 'POST', url: `${server.url}/api/v1/deploy-requests`, headers: { authorization: 'Bearer [redacted]' } });
    expect(JSON.stringify(shown)).not.toContain(KEY);
    expect(server.received.length).toBe(before);
  });
});
