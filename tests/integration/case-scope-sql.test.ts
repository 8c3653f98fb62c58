/**
 * The two forms of the case visibility rule agree (projections/cases/case-scope.ts):
 * the SQL filter behind `listCases` and `findVisibleCase` returns exactly the rows for
 * which the predicate `canSeeCase` is true, over a grid of case rows (team null/a/b ×
 * private × owner and creator none/the user/someone else) and a grid of scopes, on
 * every engine. Filters combine with the scope as a conjunction.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canSeeCase, type CaseScope, type ScopedCase } from '../../projections/cases/case-scope.ts';
import { findVisibleCase, listCases } from '../../projections/cases/cases.queries.ts';
import { engines, type TestEngine } from '../support/engines.ts';

const user = '0b6f4a57-6f0e-4c1e-9d1a-2d3f4a5b6c71';
const other = '5c2d1e0f-3a4b-4c5d-8e6f-7a8b9c0d1e22';
const stranger = '9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4';

type Row = ScopedCase & { id: string; severity: string };

/** Every combination of the columns the rule reads. */
const grid: Row[] = [];
for (const team of [null, 'a', 'b']) {
  for (const priv of [false, true]) {
    for (const owner of [null, user, other]) {
      for (const creator of [null, user, other]) {
        grid.push({ id: randomUUID(), team, private: priv, owner_id: owner, created_by_id: creator, severity: grid.length % 2 === 0 ? 'high' : 'low' });
      }
    }
  }
}

/** All = true, and every combination of user id, realm grant, teams and admin teams. */
const scopes: CaseScope[] = [{ all: true, userId: null, realm: false, teams: [], adminTeams: [] }];
for (const userId of [null, user, stranger]) {
  for (const realm of [false, true]) {
    for (const teams of [[], ['a'], ['a', 'b'], ['c'], ["o'brien"]]) {
      for (const adminTeams of [[], ['a'], ['a', 'b']]) scopes.push({ all: false, userId, realm, teams, adminTeams });
    }
  }
}

const label = (s: CaseScope) => JSON.stringify(s);

describe.each(engines)('case scope SQL against canSeeCase on $name', (engine: TestEngine) => {
  const ctx = {} as { opened: Awaited<ReturnType<TestEngine['open']>> };

  beforeAll(async () => {
    ctx.opened = await engine.open();
    const base = new Date('2026-11-22T10:00:00Z').getTime();
    await ctx.opened.db
      .insertInto('cases')
      .values(
        grid.map((r, i) => {
          const at = new Date(base + i * 1000);
          return {
            id: r.id,
            key: `SVC-${i + 1}`,
            number: i + 1,
            title: `grid case ${i + 1}`,
            description: null,
            severity: r.severity,
            tags: '[]',
            status: 'new',
            owner_id: r.owner_id,
            owner_email: r.owner_id === null ? null : `${r.owner_id}@example.com`,
            team: r.team,
            alert_count: 0,
            correlation_key: null,
            acknowledged_at: null,
            acknowledged_by: null,
            created_at: at,
            updated_at: at,
            resolved_at: null,
            closed_at: null,
            last_alert_at: null,
            private: r.private,
            created_by_id: r.created_by_id,
            attack_techniques: '[]',
            version: 1,
          };
        }),
      )
      .execute();
  });
  afterAll(async () => ctx.opened?.close());

  it('stores the whole grid', async () => {
    expect(grid).toHaveLength(54);
    const all = await listCases(ctx.opened.db, { limit: 500, offset: 0 }, scopes[0] as CaseScope, 1000);
    expect(all.total).toEqual({ value: 54, relation: 'eq' });
    expect(all.items.map((r) => r.id).sort()).toEqual(grid.map((r) => r.id).sort());
  });

  it('lists exactly the rows canSeeCase accepts, for every scope, with the same total', async () => {
    for (const scope of scopes) {
      const expected = grid
        .filter((r) => canSeeCase(scope, r))
        .map((r) => r.id)
        .sort();
      const { items, total } = await listCases(ctx.opened.db, { limit: 500, offset: 0 }, scope, 1000);
      expect(items.map((r) => r.id).sort(), label(scope)).toEqual(expected);
      expect(total?.value, label(scope)).toBe(expected.length);
    }
  });

  it('finds a case by id exactly when canSeeCase accepts it, for every scope and row', async () => {
    for (const scope of scopes) {
      const found = await Promise.all(grid.map(async (r) => (await findVisibleCase(ctx.opened.db, r.id, scope))?.id ?? null));
      const expected = grid.map((r) => (canSeeCase(scope, r) ? r.id : null));
      expect(found, label(scope)).toEqual(expected);
    }
    expect(await findVisibleCase(ctx.opened.db, randomUUID(), scopes[0] as CaseScope)).toBeUndefined();
  });

  it('keeps the scope when filters (severity, owner, search) are added', async () => {
    for (const scope of scopes) {
      const visibleHigh = grid
        .filter((r) => r.severity === 'high' && canSeeCase(scope, r))
        .map((r) => r.id)
        .sort();
      const high = await listCases(ctx.opened.db, { severity: 'high', limit: 500, offset: 0 }, scope, 1000);
      expect(high.items.map((r) => r.id).sort(), label(scope)).toEqual(visibleHigh);
      expect(high.total?.value).toBe(visibleHigh.length);

      // `owner` is an OR of two columns: it must not widen the scope.
      const visibleOwned = grid
        .filter((r) => r.owner_id === other && canSeeCase(scope, r))
        .map((r) => r.id)
        .sort();
      for (const owner of [other, `${other}@example.com`]) {
        const owned = await listCases(ctx.opened.db, { owner, limit: 500, offset: 0 }, scope, 1000);
        expect(owned.items.map((r) => r.id).sort(), `${label(scope)} owner=${owner}`).toEqual(visibleOwned);
      }

      // `search` is an OR of key and title: it must not widen the scope either.
      const searched = await listCases(ctx.opened.db, { search: 'grid case', limit: 500, offset: 0 }, scope, 1000);
      expect(searched.total?.value, label(scope)).toBe(grid.filter((r) => canSeeCase(scope, r)).length);
    }
  });

  it('pages within the scope: total counts the scope, not the page', async () => {
    const scope: CaseScope = { all: false, userId: user, realm: false, teams: ['a'], adminTeams: [] };
    const expected = grid.filter((r) => canSeeCase(scope, r)).length;
    expect(expected).toBeGreaterThan(5);
    const page = await listCases(ctx.opened.db, { limit: 5, offset: 2 }, scope, 1000);
    expect(page.items).toHaveLength(5);
    expect(page.total?.value).toBe(expected);
    expect(page.hasMore).toBe(expected > 7);
    for (const r of page.items) expect(canSeeCase(scope, r)).toBe(true);
  });

  it('counts total only when asked, exactly up to the cap, and above it answers the cap with relation gte', async () => {
    const scope = scopes[0] as CaseScope;
    expect((await listCases(ctx.opened.db, { limit: 2, offset: 0 }, scope, 54)).total).toEqual({ value: 54, relation: 'eq' });
    const capped = await listCases(ctx.opened.db, { limit: 2, offset: 0 }, scope, 10);
    expect(capped.total).toEqual({ value: 10, relation: 'gte' });
    expect(capped.items).toHaveLength(2);
    expect((await listCases(ctx.opened.db, { limit: 2, offset: 0 }, scope)).total).toBeUndefined();
  });
});
