/**
 * The cross-product resolvers (SPEC.md "Cross-product resolvers"): open cases holding
 * an observable (`GET /related-cases`) and the alerts and cases of one suite-wide
 * correlation id (`GET /suite-context/<id>`). Live reads, scoped like every case list.
 */
import type { Kysely } from 'kysely';
import { visibleAlerts } from '../alerts/alerts.queries.ts';
import type { Database } from '../database.ts';
import { visibleCases, type CaseScope } from './case-scope.ts';

/** Most open cases one related-cases answer lists. */
export const MAX_RELATED_CASES = 50;

export type ObservableKey = { type: string; normalized: string };

/**
 * Open cases (status outside `closedStatuses`) that `scope` may see and that hold one of
 * `keys` as a present observable (hand-added or from a linked alert), newest first, at most {@link MAX_RELATED_CASES};
 * `hits` counts the matching observable rows of all those cases.
 */
export async function relatedOpenCases(
  db: Kysely<Database>,
  q: { keys: ObservableKey[]; excludeCaseId: string | null; closedStatuses: readonly string[] },
  scope: CaseScope,
): Promise<{ cases: { id: string; key: string; severity: string; status: string }[]; hits: number }> {
  if (q.keys.length === 0) return { cases: [], hits: 0 };
  let matches = db
    .selectFrom('case_observables_present as o')
    .innerJoin('cases', 'cases.id', 'o.case_id')
    .where((eb) => eb.or(q.keys.map((k) => eb.and([eb('o.type', '=', k.type), eb('o.normalized', '=', k.normalized)]))))
    .where(visibleCases(scope));
  if (q.closedStatuses.length > 0) matches = matches.where('cases.status', 'not in', [...q.closedStatuses]);
  if (q.excludeCaseId) matches = matches.where('cases.id', '<>', q.excludeCaseId);
  const [cases, counted] = await Promise.all([
    matches
      .select(['cases.id', 'cases.key', 'cases.severity', 'cases.status', 'cases.created_at'])
      .distinct()
      .orderBy('cases.created_at', 'desc')
      .orderBy('cases.id')
      .limit(MAX_RELATED_CASES)
      .execute(),
    matches.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { cases: cases.map(({ id, key, severity, status }) => ({ id, key, severity, status })), hits: Number(counted.n) };
}

/**
 * The alerts carrying `suiteCorrelationId` that `scope` may see, and, scoped on their
 * own, the cases holding any alert with that id; newest first, 200 of each at most.
 */
export async function suiteContext(db: Kysely<Database>, suiteCorrelationId: string, scope: CaseScope) {
  const [alerts, cases] = await Promise.all([
    db
      .selectFrom('alerts')
      .select(['id', 'title', 'severity', 'status', 'source'])
      .where('suite_correlation_id', '=', suiteCorrelationId)
      .where(visibleAlerts(scope))
      .orderBy('received_at', 'desc')
      .orderBy('id')
      .limit(200)
      .execute(),
    db
      .selectFrom('cases')
      .select(['id', 'key', 'title', 'severity', 'status'])
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('alerts')
          .select('alerts.case_id')
          .where('alerts.suite_correlation_id', '=', suiteCorrelationId)
          .where('alerts.case_id', 'is not', null)
          .$narrowType<{ case_id: string }>(),
      )
      .where(visibleCases(scope))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(200)
      .execute(),
  ]);
  return { alerts, cases };
}
