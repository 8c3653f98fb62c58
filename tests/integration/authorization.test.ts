/**
 * Private stays private, for every operation (issue 46; docs/architecture.md
 * "Authorization"), on every engine: the test reads the service's own `/openapi.json` and,
 * for every operation whose path names an object, calls it as two users who must not
 * reach the objects of a private case P of team blue (a blue analyst who is no member of
 * P, and an admin of team red) with the real ids and with unknown ids. Each answer with a
 * real id must be the answer with an unknown id (same status and code): a refusal that
 * tells an object exists is a leak. A realm admin is the positive control: for them the
 * real id must answer differently from the unknown one, so every call reached its object.
 *
 * An operation with a path id the test has no object for fails the test: a new route must
 * say here what it reaches. Install-wide objects every reader may read (runbooks, the pack
 * registry) and token-authenticated intake are listed, with the reason, and skipped.
 * Reads go first, then changes, then deletions, so the objects stay for the calls after.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectCommands } from '../../adapters/commands/effects.ts';
import { decideAndAppend } from '../../adapters/commands/aggregate.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { systemMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import { ticketLinkDecider } from '../../domain/tickets/index.ts';
import {
  assertionAs,
  callAs,
  detectorIntake,
  nativeAlert,
  runWhen,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestPerson,
} from '../support/in-process-service.ts';
import { sample, type JsonSchema } from '../support/openapi-sample.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const tom = testPerson('tom@example.com', [{ team: 'blue', role: 'analyst' }]);
const redAdmin = testPerson('red-admin@example.com', [{ team: 'red', role: 'admin' }]);
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const outsiders = [tom, redAdmin];

/** Paths whose ids every reader may use, or that no user token reaches: not objects of P. */
const notCaseObjects: Record<string, string> = {
  '/runbooks/{slug}': 'runbooks are install-wide and readable by every reader',
  '/runbooks/{slug}/enable': 'runbooks are install-wide (manage_runbooks through a realm grant)',
  '/runbooks/{slug}/disable': 'runbooks are install-wide (manage_runbooks through a realm grant)',
  '/runbooks/{slug}/versions/{version}': 'runbooks are install-wide and readable by every reader',
  '/integration-packs/registry/{pack_id}/preview': 'the pack registry is install-wide',
  '/integration-packs/registry/{pack_id}/test': 'the pack registry is install-wide',
  '/integration-packs/registry/{pack_id}/install': 'the pack registry is install-wide',
  '/integration-packs/registry/{pack_id}/upgrade': 'the pack registry is install-wide',
  '/webhooks/{slug}': "intake authenticates a source's token, not a user",
  '/suite-context/{id}':
    'a correlation id names alerts, each visible by its own team, and the cases holding them filtered by the case rule (P is not listed: alerts-private-case.test.ts)',
};

/** An install-wide custom action. */
const pingSpec = {
  name: 'custom.authz.ping',
  title: 'Ping',
  transport: 'http',
  default_connection: 'authz-hook',
  effect_type: 'notify',
  risk: 'read',
  inputs: [],
  http: { method: 'GET', path: '/ping' },
  outputs: [],
};

/** Bodies for operations whose schema's minimal instance names nothing to change (every field optional). */
const bodies: Record<string, unknown> = {
  'PUT /cases/{id}': { title: 'Renamed' },
  'POST /cases/{id}/comments': { body: 'A note.' },
  'PATCH /cases/{id}/tasks/{task_id}': { title: 'Renamed' },
  'POST /cases/{id}/tasks/{task_id}/comments': { text: 'A note.' },
  'PUT /custom-actions/{id}': { spec: { ...pingSpec, title: 'Ping again' } },
  'PUT /views/{id}': { name: 'Green queue, renamed', resource: 'cases', query: {}, team_id: 'green' },
  'PUT /custom-fields/{id}': { label: 'Impact, renamed' },
};

type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
};
type Answer = { status: number; code: string | null };

describe.each(e2eEngines)('authorization of every object operation on $name', ({ server }) => {
  let svc: InProcessService;
  let doc: { paths: Record<string, Record<string, Operation>> };
  /** The objects, by the path parameter (or path prefix) that names them. */
  const ids: Record<string, string> = {};
  const idOf = (key: string): string => {
    const id = ids[key];
    if (id === undefined) throw new Error(`no ${key} was made`);
    return id;
  };

  const answerOf = async (who: TestPerson, method: string, path: string, body: unknown): Promise<Answer> => {
    const token = await assertionAs(svc, who, method, path);
    const res = await svc.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let code: string | null = null;
    try {
      const parsed = JSON.parse(text) as { code?: unknown };
      code = typeof parsed.code === 'string' ? parsed.code : null;
    } catch {
      // A body that is not JSON (a download) has no code.
    }
    return { status: res.status, code };
  };

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      {
        runbooks: { 'authz-gated.yml': gatedStepRunbookYaml('authz-gated', 'case.update', '{ tags_add: ["approved"] }') },
        extraEnv: { SVC_DETECTOR_BOOTSTRAP_SECRET: 'authz-bootstrap' },
      },
    );
    doc = (await (await svc.request('/openapi.json')).json()) as typeof doc;
    for (const p of [ana, tom, redAdmin, root]) expect((await callAs(svc, p, 'GET', '/auth/me')).status).toBe(200);
    const made = async (who: TestPerson, method: string, path: string, body?: unknown) => {
      const res = await callAs(svc, who, method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    const p = (await made(ana, 'POST', '/cases', { title: 'Insider lead', severity: 'high', private: true })).id as string;
    ids.case = p;
    ids.task = (await made(ana, 'POST', `/cases/${p}/tasks`, { title: 'Interview' })).id;
    ids.taskComment = (await made(ana, 'POST', `/cases/${p}/tasks/${idOf('task')}/comments`, { text: 'Booked.' })).id;
    ids.comment = (await made(ana, 'POST', `/cases/${p}/comments`, { body: 'Opened quietly.' })).id;
    ids.observable = (await made(ana, 'POST', `/cases/${p}/observables`, { type: 'ip', value: '198.51.100.40' })).id;
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode('evidence')], { type: 'text/plain' }), 'note.txt');
    const uploaded = await svc.request(`/cases/${p}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await assertionAs(svc, ana, 'POST', `/cases/${p}/attachments`)}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    ids.attachment = ((await uploaded.json()) as { id: string }).id;
    const intake = await detectorIntake(svc, nativeAlert(randomUUID(), { team: 'blue' }));
    expect(intake.status, intake.text).toBe(202);
    ids.alert = intake.body.alert_id;
    await made(ana, 'POST', `/alerts/${ids.alert}/link`, { case_id: p });
    const queued = await made(ana, 'POST', `/cases/${p}/runbooks/authz-gated/run`, {});
    ids.run = queued.id;
    await runWhen(svc, ana, idOf('run'), /^waiting_approval$/);
    // An effect and a ticket link on P, recorded through their own commands as a block step and a ticket step would.
    const store = new PostgresEventStore(svc.service.opened.db);
    ids.effect = randomUUID();
    const requested = await createEffectCommands({ store }).decide({
      type: 'request',
      effectId: ids.effect,
      effectType: 'block',
      targetType: 'ip',
      target: '198.51.100.40',
      ttlSeconds: 600,
      snapshot: null,
      snapshotDigest: null,
      refusal: { code: 'integration_not_configured', message: 'nothing bound' },
      origin: { runId: idOf('run'), stepId: 'gated', attempt: 1, caseId: p, by: null },
      now: new Date().toISOString(),
    });
    ids.ticket = randomUUID();
    const linked = await decideAndAppend(
      store,
      streams.ticket(ids.ticket),
      ticketLinkDecider,
      () => ({
        type: 'link_ticket' as const,
        linkId: idOf('ticket'),
        caseId: p,
        provider: 'ticket_a' as const,
        connection: 'tickets',
        remoteId: '10001',
        remoteKey: 'SEC-1',
        url: null,
        runId: idOf('run'),
        stepId: 'gated',
        now: new Date().toISOString(),
      }),
      systemMetadata,
    );
    await svc.service.projector.waitFor(Math.max(requested.position ?? 0, linked.position ?? 0));
    // Install-wide objects, team blue's webhook source, and a view.
    ids.connection = (
      await made(root, 'POST', '/connections', { kind: 'webhook', name: 'authz-hook', base_url: 'http://127.0.0.1:9/hook', secret: 'whsec_x' })
    ).id;
    ids.webhookSource = (await made(root, 'POST', '/webhook-sources', { type: 'detector', slug: 'blue-edr', name: 'Blue EDR', team: 'blue' })).id;
    ids.customAction = (await made(root, 'POST', '/custom-actions', { spec: pingSpec })).id;
    // A view shared with a team neither outsider holds a grant in: the realm admin, its owner, reaches it.
    ids.view = (await made(root, 'POST', '/views', { name: 'Green queue', resource: 'cases', query: {}, team_id: 'green' })).id;
    // A custom field of that team too: neither outsider reads it.
    ids.customField = (await made(root, 'POST', '/custom-fields', { name: 'green_impact', label: 'Impact', type: 'string', team_id: 'green' })).id;
  }, 120_000);
  afterAll(async () => svc?.close());

  /** The real id for path parameter `name` of `path`, or null when the test has no object for it. */
  const realId = (path: string, name: string): string | null => {
    const byPrefix: [string, string][] = [
      ['/cases/', 'case'],
      ['/alerts/', 'alert'],
      ['/runs/', 'run'],
      ['/ai/runs/', 'run'],
      ['/effects/', 'effect'],
      ['/tickets/', 'ticket'],
      ['/connections/', 'connection'],
      ['/custom-actions/', 'customAction'],
      ['/webhook-sources/', 'webhookSource'],
      ['/views/', 'view'],
      ['/custom-fields/', 'customField'],
    ];
    const byName: Record<string, string> = {
      alert_id: 'alert',
      attachment_id: 'attachment',
      observable_id: 'observable',
      task_id: 'task',
      link_id: 'ticket',
      comment_id: path.includes('/tasks/') ? 'taskComment' : 'comment',
    };
    if (name === 'slug') return 'authz-gated';
    const key = name === 'id' ? byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1] : byName[name];
    return key === undefined ? null : (ids[key] ?? null);
  };

  it('answers an outsider with a real id exactly as with an unknown one, and a realm admin differently', async () => {
    const order = (method: string) => (method === 'get' ? 0 : method === 'delete' ? 2 : 1);
    const operations = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
      .filter(({ op }) => (op.parameters ?? []).some((p) => p.in === 'path'))
      .filter(({ path }) => notCaseObjects[path] === undefined)
      .sort((a, b) => order(a.method) - order(b.method));
    expect(operations.length).toBeGreaterThan(40);

    const missing: string[] = [];
    const calls: { verb: string; path: string; real: string; unknown: string; body: unknown }[] = [];
    for (const { path, method, op } of operations) {
      const names = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      if (names.some((n) => realId(path, n) === null)) {
        missing.push(`${method.toUpperCase()} ${path}`);
        continue;
      }
      const verb = method.toUpperCase();
      const schema = op.requestBody?.content?.['application/json']?.schema;
      // The case merged into itself: 422 for whoever may act on it, and nothing moves.
      const merge = verb === 'POST' && path === '/cases/{id}/merge' ? { source_ids: [idOf('case')], reason: 'authz' } : undefined;
      const body = merge ?? bodies[`${verb} ${path}`] ?? (op.requestBody === undefined || !schema ? undefined : sample(schema, { caseId: randomUUID() }));
      calls.push({
        verb,
        path,
        real: path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(realId(path, n) ?? '')),
        unknown: path.replace(/\{([^}]+)\}/g, (_, n: string) => (n === 'slug' ? 'authz-gated' : randomUUID())),
        body,
      });
    }
    // Every outsider's call first: none may change anything, so the objects are as made for all of them.
    const leaks: string[] = [];
    for (const { verb, path, real, unknown, body } of calls) {
      for (const who of outsiders) {
        const [withReal, withUnknown] = [await answerOf(who, verb, real, body), await answerOf(who, verb, unknown, body)];
        if (withReal.status !== withUnknown.status || withReal.code !== withUnknown.code) {
          leaks.push(`${who.email} ${verb} ${path}: real ${withReal.status} ${withReal.code}, unknown ${withUnknown.status} ${withUnknown.code}`);
        }
      }
    }
    const unreached: string[] = [];
    for (const { verb, path, real, unknown, body } of calls) {
      const [control, controlUnknown] = [await answerOf(root, verb, real, body), await answerOf(root, verb, unknown, body)];
      if (control.status === controlUnknown.status && control.code === controlUnknown.code) {
        unreached.push(`${verb} ${path}: ${control.status} ${control.code} for both`);
      }
    }
    expect({ missing, leaks, unreached }).toEqual({ missing: [], leaks: [], unreached: [] });
  });
});
