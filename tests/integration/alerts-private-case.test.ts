/**
 * An alert held by a private case is as hidden as the case (SPEC.md "Authentication":
 * private-case visibility applies to alerts; issue 46), on every engine: to a non-member
 * of the case's team and to another team's analyst, escalating, linking (either way),
 * linking or unlinking it case-side and dismissing it answer exactly what an unknown
 * alert id answers, through REST and the MCP tools that replay those routes; the inbox
 * shows them the alert with `case_id: null`; the case's timeline records nothing of
 * theirs; and the case's creator still moves its alerts.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseConfigFrom } from '../../adapters/commands/case-config.ts';
import { createCaseAlertCommands } from '../../adapters/commands/case-alerts.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { loadConfig } from '../../runtime/config.ts';
import {
  callAs,
  detectorIntake,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestAnswer,
  type TestPerson,
} from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const admin = testPerson('pc-root@example.com', [{ team: null, role: 'admin' }]);
/** Opens the private case P, so a member of it. */
const ana = testPerson('pc-ana@example.com', [{ team: 'blue', role: 'analyst' }]);
/** An analyst of P's team who is no member of P. */
const bob = testPerson('pc-bob@example.com', [{ team: 'blue', role: 'analyst' }]);
/** An analyst of another team. */
const rex = testPerson('pc-rex@example.com', [{ team: 'red', role: 'analyst' }]);
const outsiders = [
  ['a non-member of its team', bob],
  ["another team's analyst", rex],
] as const;

const ALL_SCOPES = ['cases', 'alerts'].flatMap((a) => [`svc:${a}:read`, `svc:${a}:write`]).join(' ');
type Result = CallToolResult & { structuredContent?: any; _meta?: { 'svc/status'?: number } };

describe.each(e2eEngines)('alerts of a private case on $name', ({ server }) => {
  let svc: InProcessService;
  const clients: Client[] = [];
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const ok = async (who: TestPerson, method: string, path: string, body: unknown, status: number) => {
    const res = await call(who, method, path, body);
    expect(res.status, res.text).toBe(status);
    return res.body;
  };

  let privateCase = '';
  /** Cases each outsider may manage: where they would move P's alerts to. */
  const own = new Map<TestPerson, string>();
  /** A blue alert and an org-wide alert (team null, seen by every team), both held by P. */
  let blueAlert = '';
  let orgAlert = '';

  const timelineActors = async (caseId: string) =>
    (await ok(admin, 'GET', `/cases/${caseId}/timeline`, undefined, 200)).items.map((e: { actor: string | null }) => e.actor);
  const alertsOf = async (caseId: string) => (await ok(admin, 'GET', `/cases/${caseId}/alerts`, undefined, 200)).items.map((a: { id: string }) => a.id).sort();

  /** Holds `hidden` (about `alertId`) to be the very answer `absent` (about an unknown id) is: 404 `alert_not_found`. */
  const sameAsAbsent = (hidden: TestAnswer, absent: TestAnswer, alertId: string, absentId: string) => {
    expect(absent.status, absent.text).toBe(404);
    expect(absent.body).toEqual({ detail: 'alert not found', code: 'alert_not_found', params: { alert_id: absentId } });
    expect(hidden.status, hidden.text).toBe(404);
    expect(hidden.body).toEqual({ ...absent.body, params: { alert_id: alertId } });
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { listen: true });
    privateCase = (await ok(ana, 'POST', '/cases', { title: 'Insider investigation', severity: 'high', team: 'blue', private: true }, 201)).id;
    own.set(bob, (await ok(bob, 'POST', '/cases', { title: 'Bob case', severity: 'low', team: 'blue' }, 201)).id);
    own.set(rex, (await ok(rex, 'POST', '/cases', { title: 'Rex case', severity: 'low', team: 'red' }, 201)).id);

    blueAlert = (await ok(ana, 'POST', '/alerts', { title: 'Badge used after hours', severity: 'high', team: 'blue' }, 201)).id;
    await ok(ana, 'POST', `/alerts/${blueAlert}/link`, { case_id: privateCase }, 200);
    // An org-wide detector alert opens its own case; a realm admin moves it into P.
    const intake = await detectorIntake(svc, { alert_id: 'pc-org-1', rule: { id: 'r-pc', title: 'Mass download', severity: 'high' }, matched_log: {} });
    expect(intake.status, intake.text).toBe(202);
    orgAlert = intake.body.alert_id;
    await ok(admin, 'POST', `/alerts/${orgAlert}/link`, { case_id: privateCase }, 200);
    expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await svc?.close();
  });

  describe.each(outsiders)('to %s', (_, who) => {
    const requests = (alertId: string, caseId: string): [string, string, unknown][] => [
      ['GET', `/alerts/${alertId}`, undefined],
      ['POST', `/alerts/${alertId}/escalate`, {}],
      ['POST', `/alerts/${alertId}/link`, { case_id: caseId }],
      ['POST', `/alerts/${alertId}/dismiss`, {}],
      ['POST', `/cases/${caseId}/alerts`, { alert_id: alertId }],
      ['DELETE', `/cases/${caseId}/alerts/${alertId}`, undefined],
    ];

    it('refuses reading or moving an alert P holds exactly like an unknown alert, and P keeps it', async () => {
      const target = own.get(who) as string;
      for (const alertId of [blueAlert, orgAlert]) {
        const absentId = randomUUID();
        const hidden = requests(alertId, target);
        const absent = requests(absentId, target);
        for (const [i, [method, path, body]] of hidden.entries()) {
          const [aMethod, aPath, aBody] = absent[i] as [string, string, unknown];
          sameAsAbsent(await call(who, method, path, body), await call(who, aMethod, aPath, aBody), alertId, absentId);
        }
      }
      expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
      expect(await alertsOf(target)).toEqual([]);
    });

    it('refuses linking its own alert into P exactly like linking into an unknown case', async () => {
      const mine = (await ok(admin, 'POST', '/alerts', { title: `Alert for ${who.email}`, severity: 'low', team: who === rex ? 'red' : 'blue' }, 201)).id;
      const absentCase = randomUUID();
      for (const [path, body, absentPath, absentBody] of [
        [`/alerts/${mine}/link`, { case_id: privateCase }, `/alerts/${mine}/link`, { case_id: absentCase }],
        [`/cases/${privateCase}/alerts`, { alert_id: mine }, `/cases/${absentCase}/alerts`, { alert_id: mine }],
      ] as const) {
        const hidden = await call(who, 'POST', path, body);
        const absent = await call(who, 'POST', absentPath, absentBody);
        expect(absent.body.code).toBe('case_not_found');
        expect(hidden.status).toBe(404);
        expect(hidden.body).toEqual({ ...absent.body, params: { case_id: privateCase } });
      }
      expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
    });

    it("lists P's alerts it sees in the inbox with case_id null", async () => {
      const items: { id: string; case_id: string | null }[] = (await ok(who, 'GET', '/alerts?limit=200', undefined, 200)).items;
      const seen = items.filter((a) => a.id === blueAlert || a.id === orgAlert);
      // The blue alert is outside rex's teams altogether; the org-wide one is in everyone's inbox.
      expect(seen.map((a) => a.id).sort()).toEqual((who === rex ? [orgAlert] : [blueAlert, orgAlert]).sort());
      for (const a of seen) expect(a.case_id).toBeNull();
    });

    it('refuses the MCP tools svc_get_alert, svc_escalate_alert and svc_link_alert exactly like an unknown alert, and lists P’s alerts with case_id null', async () => {
      const token = await svc.identity.sign({
        token_use: 'exchange',
        sub: 'agent-workload',
        scope: ALL_SCOPES,
        act: { sub: who.sub, email: who.email, grants: who.grants },
      });
      const client = new Client({ name: 'svc-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/peer/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      clients.push(client);
      const tool = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;
      const target = own.get(who) as string;
      for (const alertId of [blueAlert, orgAlert]) {
        const absentId = randomUUID();
        for (const [name, extra] of [
          ['svc_get_alert', {}],
          ['svc_escalate_alert', {}],
          ['svc_link_alert', { case_id: target }],
        ] as const) {
          const key = (id: string) => (name === 'svc_get_alert' ? {} : { idempotency_key: `${who.email}-${name}-${id}` });
          const hidden = await tool(name, { id: alertId, ...extra, ...key(alertId) });
          const absent = await tool(name, { id: absentId, ...extra, ...key(absentId) });
          expect(absent._meta?.['svc/status']).toBe(404);
          expect(hidden.isError).toBe(true);
          expect(hidden._meta?.['svc/status']).toBe(404);
          expect(hidden.structuredContent).toEqual({ ...absent.structuredContent, params: { alert_id: alertId } });
          expect(absent.structuredContent).toEqual({ detail: 'alert not found', code: 'alert_not_found', params: { alert_id: absentId } });
        }
      }
      const listed: { id: string; case_id: string | null }[] = (await tool('svc_list_alerts', { limit: 200 })).structuredContent.items;
      const orgRow = listed.find((a) => a.id === orgAlert);
      expect(orgRow?.case_id).toBeNull();
      expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
    });

    it("leaves no event of the outsider on P's timeline", async () => {
      expect(await timelineActors(privateCase)).not.toContain(who.email);
    });
  });

  it('refuses a move whose check saw the alert in another case than its stream shows: it may have moved into P since', async () => {
    const { db } = svc.service.opened;
    const commands = createCaseAlertCommands({
      store: new PostgresEventStore(db),
      db,
      now: () => new Date(),
      ids: randomUUID,
      config: caseConfigFrom(loadConfig(svc.env)),
    });
    const actor = { userId: null, email: bob.email };
    // What a route read just before the admin moved the org-wide alert into P: in no case.
    const seenIn = null;
    const moves = [
      () => commands.link(own.get(bob) as string, orgAlert, seenIn, actor),
      () => commands.escalate(orgAlert, seenIn, { title: null, severity: null, private: false }, actor),
      () => commands.dismiss(orgAlert, seenIn, null, actor),
    ];
    for (const move of moves) await expect(move()).rejects.toMatchObject({ code: 'alert_not_found', status: 404, params: { alert_id: orgAlert } });
    expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
    expect(await timelineActors(privateCase)).not.toContain(bob.email);
  });

  it("lets P's creator see its alerts' case, escalate one out of P and link it back", async () => {
    const inbox: { id: string; case_id: string | null }[] = (await ok(ana, 'GET', '/alerts?limit=200', undefined, 200)).items;
    expect(inbox.find((a) => a.id === blueAlert)?.case_id).toBe(privateCase);
    const escalated = await ok(ana, 'POST', `/alerts/${blueAlert}/escalate`, {}, 201);
    expect(escalated.alert).toMatchObject({ id: blueAlert, case_id: escalated.case_id, status: 'linked' });
    expect(await alertsOf(privateCase)).toEqual([orgAlert]);
    expect(await ok(ana, 'POST', `/alerts/${blueAlert}/link`, { case_id: privateCase }, 200)).toMatchObject({ id: blueAlert, case_id: privateCase });
    expect(await alertsOf(privateCase)).toEqual([blueAlert, orgAlert].sort());
    expect(await timelineActors(privateCase)).toContain(ana.email);
    expect(svc.errors()).toEqual([]);
  });
});
