/**
 * Clients written for the original interface (issue 19): request bodies follow its
 * convention (keys a model does not declare are ignored, known keys stay strictly typed),
 * fields are accepted under SPEC.md's names (`text` for comments, the alert fields
 * `rule_title`, `external_id`, `external_url`, `correlation_root` on a manual alert), and
 * an `ssh` connection needs no `base_url` (SPEC.md: unused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

describe.each(e2eEngines)('original-interface clients on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  const call = (method: string, path: string, body?: unknown) => callAs(svc, root, method, path, body);

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    caseId = (await call('POST', '/cases', { title: 'Compat', severity: 'high', client_hint: 'ignored' })).body.id;
  });
  afterAll(async () => svc?.close());

  it('takes a case comment and a task comment as `text`, and shows it as `text`', async () => {
    const comment = await call('POST', `/cases/${caseId}/comments`, { text: 'spec spelling', client_ref: 7 });
    expect(comment.status, comment.text).toBe(201);
    expect(comment.body).toMatchObject({ text: 'spec spelling', body: 'spec spelling' });
    const older = await call('POST', `/cases/${caseId}/comments`, { body: 'older spelling' });
    expect(older.status, older.text).toBe(201);
    const both = await call('POST', `/cases/${caseId}/comments`, { text: 'a', body: 'b' });
    expect(both.status).toBe(422);
    expect(both.body.detail[0].loc).toEqual(['body', 'text']);
    expect((await call('POST', `/cases/${caseId}/comments`, {})).status).toBe(422);

    const task = await call('POST', `/cases/${caseId}/tasks`, { title: 'Collect logs' });
    expect(task.status, task.text).toBe(201);
    const taskComment = await call('POST', `/cases/${caseId}/tasks/${task.body.id}/comments`, { text: 'x'.repeat(4000) });
    expect(taskComment.status, taskComment.text).toBe(201);
    expect(taskComment.body.text).toHaveLength(4000);
    expect((await call('POST', `/cases/${caseId}/tasks/${task.body.id}/comments`, { text: 'x'.repeat(4001) })).status).toBe(422);
    const listed = await call('GET', `/cases/${caseId}/comments`);
    expect(listed.body.items.map((c: { text: string }) => c.text)).toEqual(expect.arrayContaining(['spec spelling', 'older spelling']));
  });

  it('takes a manual alert in the alert fields SPEC.md names, normalized like intake', async () => {
    const res = await call('POST', '/alerts', {
      rule_title: 'Impossible travel',
      severity: ' HIGH ',
      external_id: 'ext-42',
      external_url: 'https://detector.example/alerts/42',
      correlation_root: 'user:alice',
      observables: [{ type: 'ip', value: ' 203.0.113.7 ' }],
      vendor_extra: { ignored: true },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Impossible travel',
      severity: 'high',
      external_id: 'ext-42',
      url: 'https://detector.example/alerts/42',
      correlation_key: 'user:alice',
    });
    const noTitle = await call('POST', '/alerts', { severity: 'high' });
    expect(noTitle.status).toBe(422);
    expect(noTitle.body.detail[0].loc).toEqual(['body', 'title']);
    expect((await call('POST', '/alerts', { title: 'x', severity: 'high', external_url: 'not a url' })).status).toBe(422);
  });

  it('creates an ssh connection without base_url, or with one it ignores', async () => {
    const config = { host: '127.0.0.1', username: 'svc', accept_unknown_host_key: true };
    const bare = await call('POST', '/connections', { kind: 'ssh', name: 'bastion-a', config, secret: 'key' });
    expect(bare.status, bare.text).toBe(201);
    const blank = await call('POST', '/connections', { kind: 'ssh', name: 'bastion-b', base_url: '', config, secret: 'key' });
    expect(blank.status, blank.text).toBe(201);
    expect(blank.body.base_url).toBeNull();
    const hostOnly = await call('POST', '/connections', { kind: 'ssh', name: 'bastion-c', base_url: 'bastion.internal', config, secret: 'key' });
    expect(hostOnly.status, hostOnly.text).toBe(201);
    expect(hostOnly.body.base_url).toBeNull();
    // Kinds that use base_url still need a URL there.
    const webhook = await call('POST', '/connections', { kind: 'webhook', name: 'hook-bad', base_url: 'not a url', secret: 's' });
    expect(webhook.status).toBe(422);
    expect(webhook.body.detail[0].loc).toEqual(['body', 'base_url']);
  });

  it('still types known keys strictly while ignoring unknown ones', async () => {
    expect((await call('POST', '/cases', { title: 'x', severity: 'high', private: 'yes' })).status).toBe(422);
    const put = await call('PUT', `/cases/${caseId}`, { severity: 'low', colour: 'red' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).not.toHaveProperty('colour');
  });
});
