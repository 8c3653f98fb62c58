/**
 * The alert inbox is scoped by team like cases that are not private (docs/configuration.md
 * "Cases: team, private cases"), and an alert names its case only to who may see that case
 * (`redactCaseLinks` against the predicate `canSeeCase`), on every engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAlerts, redactCaseLinks } from '../../projections/alerts/alerts.queries.ts';
import { canSeeCase, type CaseScope, type ScopedCase } from '../../projections/cases/case-scope.ts';
import { engines, type TestEngine } from '../support/engines.ts';

const scope = (s: Partial<CaseScope>): CaseScope => ({ all: false, userId: null, realm: false, teams: [], adminTeams: [], ...s });

const user = '0b6f4a57-6f0e-4c1e-9d1a-2d3f4a5b6c71';
/** Every combination of team, privacy and membership a case holding an alert can have. */
const holders: (ScopedCase & { id: string })[] = [];
for (const team of [null, 'team-a']) {
  for (const priv of [false, true]) {
    for (const creator of [null, user]) holders.push({ id: randomUUID(), team, private: priv, owner_id: null, created_by_id: creator });
  }
}
const scopes: CaseScope[] = [scope({ all: true })];
for (const userId of [null, user]) {
  for (const realm of [false, true]) {
    for (const teams of [[], ['team-a'], ['team-b']]) {
      for (const adminTeams of [[], ['team-a']]) scopes.push(scope({ userId, realm, teams, adminTeams }));
    }
  }
}

describe.each(engines)('alert inbox scope on $name', (engine: TestEngine) => {
  const ctx = {} as { opened: Awaited<ReturnType<TestEngine['open']>> };
  beforeAll(async () => {
    ctx.opened = await engine.open();
    const at = new Date('2026-11-22T10:00:00Z');
    await ctx.opened.db
      .insertInto('alerts')
      .values(
        [null, 'team-a', 'team-b'].map((team) => ({
          id: randomUUID(),
          source: 'detector',
          external_id: `ext-${team ?? 'org'}`,
          rule_id: null,
          title: `alert of ${team ?? 'org'}`,
          severity: 'high',
          status: 'new',
          case_id: null,
          detected_at: null,
          url: null,
          correlation_key: null,
          suite_correlation_id: null,
          team,
          repeat_count: 0,
          payload: '{}',
          received_at: at,
          last_seen_at: at,
          version: 2,
        })),
      )
      .execute();
  });
  afterAll(async () => ctx.opened.close());

  it("names an alert's case exactly to the scopes canSeeCase lets see it", async () => {
    const { db } = ctx.opened;
    const at = new Date('2026-11-22T11:00:00Z');
    await db
      .insertInto('cases')
      .values(
        holders.map((c, i) => ({
          id: c.id,
          key: `SVC-${i + 1}`,
          number: i + 1,
          title: `holder ${i + 1}`,
          description: null,
          severity: 'high',
          tags: '[]',
          status: 'new',
          owner_id: c.owner_id,
          owner_email: null,
          team: c.team,
          alert_count: 1,
          correlation_key: null,
          acknowledged_at: null,
          acknowledged_by: null,
          created_at: at,
          updated_at: at,
          resolved_at: null,
          closed_at: null,
          last_alert_at: at,
          private: c.private,
          created_by_id: c.created_by_id,
          attack_techniques: '[]',
          version: 1,
        })),
      )
      .execute();
    // Two alerts in each holder (the query answers a case once for many rows), and one in no case.
    const rows = [...holders, ...holders, null].map((c, i) => ({ id: `alert-${i}`, case_id: c?.id ?? null }));
    for (const s of scopes) {
      const expected = [...holders, ...holders, null].map((c, i) => ({ id: `alert-${i}`, case_id: c !== null && canSeeCase(s, c) ? c.id : null }));
      expect(await redactCaseLinks(db, rows, s), JSON.stringify(s)).toEqual(expected);
    }
    expect(await redactCaseLinks(db, [{ case_id: randomUUID() }], scope({ all: true }))).toEqual([{ case_id: null }]);
  });

  const titles = async (s: CaseScope) => (await listAlerts(ctx.opened.db, { limit: 50, offset: 0 }, s)).items.map((r) => r.title).sort();

  it('shows org-wide alerts and the caller’s teams, everything to realm grants', async () => {
    expect(await titles(scope({ teams: ['team-a'] }))).toEqual(['alert of org', 'alert of team-a']);
    expect(await titles(scope({ teams: [] }))).toEqual(['alert of org']);
    expect(await titles(scope({ realm: true }))).toEqual(['alert of org', 'alert of team-a', 'alert of team-b']);
    expect(await titles(scope({ all: true }))).toEqual(['alert of org', 'alert of team-a', 'alert of team-b']);
  });
});
