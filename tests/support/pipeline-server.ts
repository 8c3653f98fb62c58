/**
 * A pipeline product on 127.0.0.1 that follows the contract of docs/suite-contracts.md
 * "Pipeline": a bearer API key on every call; `POST /api/v1/deploy-requests` validates
 * the body, creates a `pending` request (the same one again for a repeated
 * `Idempotency-Key`) and answers 201; `GET /api/v1/deploy-requests[?pipeline=<id>][&limit=<n>]`
 * lists that pipeline's requests (every request without `pipeline`, at most `limit`) as
 * `{items}`. A test moves a request through its statuses,
 * as an approver inside the product would.
 */
import { randomUUID } from 'node:crypto';
import { startReceiver } from './receiver.ts';

type DeployRequest = {
  id: string;
  pipeline: string;
  source: string;
  kind: string;
  sample_rate?: number;
  reason: string;
  status: string;
  created_at: string;
  deployed_at: string | null;
};

export async function startPipelineServer(apiKey: string) {
  const requests: DeployRequest[] = [];
  const byIdempotencyKey = new Map<string, DeployRequest>();
  let onPoll: (polls: number) => void = () => {};
  let polls = 0;
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const receiver = await startReceiver((r, res) => {
    if (r.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { detail: 'invalid API key' });
    const url = new URL(r.path, 'http://pipeline');
    if (url.pathname !== '/api/v1/deploy-requests') return json(res, 404, { detail: 'not found' });
    if (r.method === 'GET') {
      polls += 1;
      onPoll(polls);
      const pipeline = url.searchParams.get('pipeline');
      const items = requests.filter((q) => pipeline === null || q.pipeline === pipeline);
      return json(res, 200, { items: items.slice(0, Number(url.searchParams.get('limit') ?? items.length)) });
    }
    if (r.method !== 'POST') return json(res, 405, { detail: 'method not allowed' });
    const body = JSON.parse(r.body) as Partial<DeployRequest>;
    const kinds = ['quarantine_source', 'drop_source', 'sample_source', 'fork_to_lake'];
    if (typeof body.pipeline !== 'string' || typeof body.source !== 'string' || !kinds.includes(String(body.kind)) || typeof body.reason !== 'string') {
      return json(res, 422, { detail: 'pipeline, source, kind and reason are required' });
    }
    if ((body.kind === 'sample_source') !== (typeof body.sample_rate === 'number'))
      return json(res, 422, { detail: 'sample_rate goes with sample_source only' });
    if (body.pipeline === 'unknown-pipeline') return json(res, 404, { detail: `pipeline ${body.pipeline} does not exist` });
    const key = String(r.headers['idempotency-key'] ?? '');
    const known = key ? byIdempotencyKey.get(key) : undefined;
    if (known) return json(res, 201, known);
    const created: DeployRequest = {
      id: randomUUID(),
      pipeline: body.pipeline,
      source: body.source,
      kind: String(body.kind),
      ...(body.sample_rate !== undefined && { sample_rate: body.sample_rate }),
      reason: body.reason,
      status: 'pending',
      created_at: new Date().toISOString(),
      deployed_at: null,
    };
    requests.push(created);
    if (key) byIdempotencyKey.set(key, created);
    json(res, 201, created);
  });
  return {
    ...receiver,
    requests,
    /** Sets a request's status (and `deployed_at` when deployed). */
    setStatus: (id: string, status: string) => {
      const q = requests.find((r) => r.id === id);
      if (q) Object.assign(q, { status, deployed_at: status === 'deployed' ? new Date().toISOString() : q.deployed_at });
    },
    /** Called with the running count of list calls. */
    onPoll: (f: (polls: number) => void) => {
      polls = 0;
      onPoll = f;
    },
  };
}
