/**
 * The alert inbox is scoped by team like cases that are not private (docs/configuration.md
 * "Cases: team, private cases"), on every engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAlerts } from '../../projections/alerts/alerts.queries.ts';
import type { CaseScope } from '../../projections/cases/case-scope.ts';
import { engines, type TestEngine } from '../support/engines.ts';

const scope = (s: Partial<CaseScope>): CaseScope => ({ all: false, userId: null, realm: false, teams: [], adminTeams: [], ...s });

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

  const titles = async (s: CaseScope) => (await listAlerts(ctx.opened.db, { limit: 50, offset: 0 }, s)).map((r) => r.title).sort();

  it('shows org-wide alerts and the caller’s teams, everything to realm grants', async () => {
    expect(await titles(scope({ teams: ['team-a'] }))).toEqual(['alert of org', 'alert of team-a']);
    expect(await titles(scope({ teams: [] }))).toEqual(['alert of org']);
    expect(await titles(scope({ realm: true }))).toEqual(['alert of org', 'alert of team-a', 'alert of team-b']);
    expect(await titles(scope({ all: true }))).toEqual(['alert of org', 'alert of team-a', 'alert of team-b']);
  });
});
