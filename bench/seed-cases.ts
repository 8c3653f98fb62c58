/**
 * The 100k-case read model the case-list and peer-search benches share, written with one
 * INSERT ... SELECT (both read only the `cases` projection): 6 teams and org-wide, 5 %
 * private, 4 statuses, 4 severities, a third owned by one of 50 analysts, and a hash
 * fragment in each title (`host-<8 hex>`) for rare substrings. Case n has key `SVC-<n>`,
 * team `team-a` when n % 7 = 1, is private when n % 20 = 0.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';

export async function seedCases(db: Kysely<Database>, caseCount: number): Promise<void> {
  await sql`
    insert into cases (id, key, number, title, description, severity, tags, status, owner_id, owner_email, team, alert_count,
                       created_at, updated_at, version, private, created_by_id)
    select gen_random_uuid(), 'SVC-' || n, n,
           (array['Phishing report','Malware on endpoint','Impossible travel','Brute force','Data exfiltration'])[1 + n % 5]
             || ' #' || n || ' host-' || substr(md5(n::text), 1, 8),
           null,
           (array['low','medium','high','critical'])[1 + n % 4],
           '[]'::jsonb,
           (array['new','in_progress','resolved','closed'])[1 + (n / 7) % 4],
           case when n % 3 = 0 then md5('analyst-' || (n % 50))::uuid end,
           case when n % 3 = 0 then 'analyst-' || (n % 50) || '@example.com' end,
           (array['team-a','team-b','team-c','team-d','team-e','team-f',null])[1 + n % 7],
           1 + n % 5,
           now() - make_interval(secs => ${caseCount} - n), now(), 1,
           n % 20 = 0,
           null
    from generate_series(1, ${caseCount}::int) as n`.execute(db);
  await sql`select setval('case_number_seq', ${caseCount}::bigint)`.execute(db);
  await sql`analyze cases`.execute(db);
}
