/**
 * The war-room and presence of a case on the real service, on every engine (SPEC.md
 * "Cases": `GET /cases/<id>/war-room`, `GET /cases/<id>/presence`; docs/configuration.md
 * "War-room and presence").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const noteRunbook = manualNoteRunbook('war-room-note', 'from the runbook');

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'viewer' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('war-room and presence on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'war-room-note.yml': noteRunbook }, extraEnv: { SVC_PRESENCE_HEARTBEAT_SECONDS: '45' } });
    const opened = await call(ana, 'POST', '/cases', { title: 'Credential stuffing on VPN', severity: 'high', private: true });
    expect(opened.status, opened.text).toBe(201);
    caseId = opened.body.id;
  });
  afterAll(async () => svc?.close());

  it('gathers recent comments newest first, runs, the open-task count and the heartbeat interval', async () => {
    for (const body of ['first look', 'VPN logs pulled', 'deleted soon'])
      expect((await call(ana, 'POST', `/cases/${caseId}/comments`, { body })).status).toBe(201);
    const comments = (await call(ana, 'GET', `/cases/${caseId}/comments`)).body.items as { id: string; body: string }[];
    const doomed = comments.find((c) => c.body === 'deleted soon');
    expect((await call(ana, 'DELETE', `/cases/${caseId}/comments/${doomed?.id}`)).status).toBe(204);
    for (const title of ['Reset passwords', 'Block source ranges', 'Notify users'])
      expect((await call(ana, 'POST', `/cases/${caseId}/tasks`, { title })).status).toBe(201);
    const tasks = (await call(ana, 'GET', `/cases/${caseId}/tasks`)).body.items as { id: string }[];
    expect((await call(ana, 'PATCH', `/cases/${caseId}/tasks/${tasks[0]?.id}`, { status: 'done' })).status).toBe(200);
    const run = await call(ana, 'POST', `/cases/${caseId}/runbooks/war-room-note/run`, { dry_run: true });
    expect(run.status, run.text).toBe(202);

    const room = await call(ana, 'GET', `/cases/${caseId}/war-room`);
    expect(room.status, room.text).toBe(200);
    expect(room.body).toMatchObject({
      case_id: caseId,
      title: 'Credential stuffing on VPN',
      severity: 'high',
      open_task_count: 2,
      presence_heartbeat_interval_s: 45,
    });
    expect(room.body.recent_comments.map((c: { body: string }) => c.body)).toEqual(['VPN logs pulled', 'first look']);
    expect(room.body.runs).toEqual([expect.objectContaining({ id: run.body.id, runbook_id: 'war-room-note', case_id: caseId, dry_run: true })]);
  });

  it('counts a war-room fetch as the caller’s heartbeat; GET /presence only reads', async () => {
    const before = await call(ana, 'GET', `/cases/${caseId}/presence`);
    expect(before.status).toBe(200);
    const anaId = (await call(ana, 'GET', '/auth/me')).body.id;
    expect(before.body.items.map((v: { user_id: string }) => v.user_id)).toEqual([anaId]);
    expect(before.body.heartbeat_interval_s).toBe(45);

    const room = await call(ana, 'GET', `/cases/${caseId}/war-room`);
    const me = room.body.presence.find((v: { user_id: string }) => v.user_id === anaId);
    expect(me).toMatchObject({ email: 'ana@example.com', joined_at: before.body.items[0].joined_at });
    expect(Date.parse(me.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(before.body.items[0].last_seen_at));
  });

  it('answers 404 case_not_found for a case the caller cannot see, and leaves no trace of it on the roster', async () => {
    for (const path of [`/cases/${caseId}/war-room`, `/cases/${caseId}/presence`, `/cases/${randomUUID()}/war-room`]) {
      const res = await call(eve, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('case_not_found');
    }
    const eveId = (await call(eve, 'GET', '/auth/me')).body.id;
    const roster = (await call(ana, 'GET', `/cases/${caseId}/presence`)).body.items as { user_id: string }[];
    expect(roster.map((v) => v.user_id)).not.toContain(eveId);
  });

  it('lets a team viewer of a public case read the war-room and appear on the roster', async () => {
    const open = await call(ana, 'POST', '/cases', { title: 'Phishing wave', severity: 'medium' });
    const room = await call(bob, 'GET', `/cases/${open.body.id}/war-room`);
    expect(room.status, room.text).toBe(200);
    expect(room.body.presence.map((v: { email: string }) => v.email)).toEqual(['bob@example.com']);
    expect(room.body.recent_comments).toEqual([]);
    expect(room.body.open_task_count).toBe(0);
    expect((await call(bob, 'GET', `/cases/${caseId}/war-room`)).status).toBe(404);
  });

  it('refuses a malformed case id with 422 naming it', async () => {
    const res = await call(ana, 'GET', '/cases/not-a-uuid/war-room');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'id']);
  });
});
