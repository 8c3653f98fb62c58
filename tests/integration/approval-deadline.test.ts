/**
 * A gate's deadline default comes from the suite's approval settings at identity, on every
 * engine (SPEC.md "Runs, steps and gates": `timeout_h` hours after opening, else the
 * install default from the approval settings, else 24 hours when that cannot be read;
 * "Limits"). The setting is read through the workload exchange and the guarded edge from
 * the identity stand-in (tests/support/identity-server.ts), kept for
 * SVC_APPROVAL_SETTINGS_TTL_S by the service clock (a manual one here), and fixed in the
 * gate's `gate.opened` event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { eventsOfType } from '../support/events.ts';
import { APPROVAL_SETTINGS_PATH, identityServiceEnv, startIdentityServer, type IdentityMode, type IdentityServer } from '../support/identity-server.ts';
import { callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';

const EXCHANGE_SECRET = 'xs_approval-deadline-secret-92d0';
const HOUR = 3_600_000;

const gated = (id: string, approval: string) => gatedStepRunbookYaml(id, 'case.update', '{ tags_add: ["approved"] }', approval, { stepId: 'contain' });
const runbooks = {
  'default-gate.yml': gated('default-gate', '{ roles: [approver] }'),
  'own-timeout.yml': gated('own-timeout', '{ roles: [approver], timeout_h: 2 }'),
};
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

describe.each(e2eEngines)('approval deadline default on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let identity: IdentityServer;
  let svc: InProcessService;
  let caseId = '';

  const settingsReads = () => identity.requests.filter((r) => r.path === APPROVAL_SETTINGS_PATH).length;
  /** Opens `count` gates of `slug` at once; answers each gate's deadline minus its opening, in hours. */
  const openGates = async (slug: string, count = 1): Promise<number[]> => {
    const ids = await Promise.all(
      Array.from({ length: count }, async () => {
        const queued = await callAs(svc, root, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
        expect(queued.status, queued.text).toBe(202);
        return queued.body.id as string;
      }),
    );
    const runs = await Promise.all(ids.map((id) => runWhen(svc, root, id, /^waiting_approval$/)));
    return runs.map((run) => (Date.parse(run.gates[0].expires_at) - Date.parse(run.gates[0].opened_at)) / HOUR);
  };

  beforeAll(async () => {
    identity = await startIdentityServer('svc', EXCHANGE_SECRET);
    identity.settings = { default_deadline_hours: 6, four_eyes: true };
    // Past the 3 s timeout below: the stand-in's default 1 s left a loaded CI machine reading
    // settings in normal mode too late (24 hours where 6 were set).
    identity.slowMs = 4500;
    svc = await startInProcessService(
      { server },
      {
        runbooks,
        clock: clock.now,
        extraEnv: {
          ...identityServiceEnv(identity, EXCHANGE_SECRET),
          SVC_APPROVAL_SETTINGS_TTL_S: '60',
          SVC_IDENTITY_TIMEOUT_MS: '3000',
        },
      },
    );
    const created = await callAs(svc, root, 'POST', '/cases', { title: 'Deadlines', severity: 'low', team: null });
    expect(created.status, created.text).toBe(201);
    caseId = created.body.id;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await identity?.close();
  });

  it("takes the install default from identity's approval settings, read once for gates opening together", async () => {
    expect(await openGates('default-gate', 3)).toEqual([6, 6, 6]);
    expect(settingsReads()).toBe(1);
    expect(identity.mints).toContainEqual({ audience: 'identity', scope: 'identity:approval-settings:read' });
    // A step's own timeout_h needs no setting.
    expect(await openGates('own-timeout')).toEqual([2]);
    expect(settingsReads()).toBe(1);
  });

  it('keeps the setting for the TTL by the service clock, then reads it again', async () => {
    identity.settings = { default_deadline_hours: 12 };
    clock.advance(30_000);
    expect(await openGates('default-gate')).toEqual([6]);
    expect(settingsReads()).toBe(1);
    clock.advance(31_000);
    expect(await openGates('default-gate')).toEqual([12]);
    expect(settingsReads()).toBe(2);
  });

  it('falls back to 24 hours whenever the settings cannot be read, asking again at the next gate', async () => {
    clock.advance(61_000);
    for (const mode of ['slow', 'error', 'malformed', 'refused'] as IdentityMode[]) {
      await identity.setMode(mode);
      const before = settingsReads();
      try {
        expect([mode, ...(await openGates('default-gate'))]).toEqual([mode, 24]);
      } finally {
        await identity.setMode('normal');
      }
      // Refused connections never reach the server's log; the others were asked once, not retried.
      expect([mode, settingsReads() - before]).toEqual([mode, mode === 'refused' ? 0 : 1]);
    }
    identity.settings = { default_deadline_hours: 'soon' };
    expect(await openGates('default-gate')).toEqual([24]);
    identity.settings = { default_deadline_hours: 8 };
    expect(await openGates('default-gate')).toEqual([8]);
  });

  it("fixes the deadline in the gate's event: a later setting does not move an open gate", async () => {
    const opened = await eventsOfType(svc.service.opened.db, 'gate.opened');
    const first = opened[0]?.data as { run_id: string; deadline: string; at: string };
    expect(Date.parse(first.deadline) - Date.parse(first.at)).toBe(6 * HOUR);
    identity.settings = { default_deadline_hours: 1 };
    clock.advance(61_000);
    expect(await openGates('default-gate')).toEqual([1]);
    const run = (await callAs(svc, root, 'GET', `/runs/${first.run_id}`)).body;
    expect(run.gates[0].expires_at).toBe(new Date(first.deadline).toISOString());
    expect(run.status).toBe('waiting_approval');
  });
});
