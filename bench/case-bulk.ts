/**
 * `make bench`: bulk-closing cases (issue 50, BENCH.md "bulk and search") next to closing
 * the same number one request at a time, both measured in the same run on the same
 * service and database.
 *
 * `case_close_single_requests_ms_vs_bulk`: the wall time (ms) of BENCH_BULK_CASES (500)
 * `POST /cases/<id>/status {status: closed}` sent one after another, as a script looping
 * over a selection would, against that of one `POST /cases/bulk {operation: close}` of as
 * many cases: the ratio is the bulk route's speed-up, so higher is better. Both sets are opened once; each round closes them and then reopens them
 * (unmeasured) with a bulk `reopen`. Medians over BENCH_ROUNDS rounds.
 */
import { systemClock } from '../adapters/shared/clock.ts';
import { apiOf, benchLine, expectStatus, median, printReport, runBench, startBenchService, type Api } from './bench-service.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const caseCount = Number(process.env.BENCH_BULK_CASES ?? 500);

/** Opens `n` cases, 20 at a time. */
async function openCases(api: Api, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 20) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(20, n - start) }, (_, i) =>
        expectStatus(api('POST', '/cases', { title: `Bulk ${start + i}`, severity: 'low' }), 201, 'open a case'),
      ),
    );
    ids.push(...opened.map((c) => (c as { id: string }).id));
  }
  return ids;
}

/** Milliseconds `work` took. */
async function timed(work: () => Promise<void>): Promise<number> {
  const started = systemClock().getTime();
  await work();
  return systemClock().getTime() - started;
}

/** Every result of a bulk answer is ok, or the bench stops saying which was not. */
function allOk(answer: unknown, what: string): void {
  const failed = (answer as { results: { ok: boolean }[] }).results.filter((r) => !r.ok);
  if (failed.length > 0) throw new Error(`${what}: ${failed.length} ids failed, first ${JSON.stringify(failed[0])}`);
}

async function main() {
  const bench = await startBenchService();
  const { engine } = bench.service.opened;
  const api = apiOf(bench, await bench.exchangeToken([{ team: null, role: 'analyst' }], 'svc:cases:write svc:cases:read'));
  const [bulkIds, singleIds] = [await openCases(api, caseCount), await openCases(api, caseCount)];

  const bulk: number[] = [];
  const single: number[] = [];
  for (let round = 0; round < rounds; round++) {
    bulk.push(
      await timed(async () => allOk(await expectStatus(api('POST', '/cases/bulk', { ids: bulkIds, operation: 'close' }), 200, 'bulk close'), 'bulk close')),
    );
    single.push(
      await timed(async () => {
        for (const id of singleIds) await expectStatus(api('POST', `/cases/${id}/status`, { status: 'closed' }), 200, 'close one case');
      }),
    );
    for (const ids of [bulkIds, singleIds])
      allOk(await expectStatus(api('POST', '/cases/bulk', { ids, operation: 'reopen' }), 200, 'bulk reopen'), 'bulk reopen');
  }
  printReport(`engine=${engine} cases=${caseCount} rounds=${rounds}`, [
    benchLine('case_close_single_requests_ms_vs_bulk', median(single), median(bulk), '>= 5x'),
  ]);
  await bench.close();
}

runBench(main);
