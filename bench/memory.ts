/**
 * `make bench`: heap per 10k open cases (../shared/BENCH.md row "memory", target <= 3x),
 * next to the JSON size of those cases as `GET /cases` answers them.
 *
 * The service runs as one process with both roles (`SVC_ROLE=all`, the default), so the
 * figure covers the API and the worker together. After a warm-up (alerts that open cases,
 * so modules, compiled code and pools exist before the first measure), the bench opens
 * BENCH_MEMORY_CASES (10,000) more cases, each by one detector alert of a rule of its own,
 * 32 requests at a time. The heap is V8's `heapUsed` after two full collections, before and
 * after; the difference, scaled to 10k cases, is the value. The baseline is the byte length
 * of those cases' JSON as `GET /cases` pages them (200 a page), scaled the same way. What
 * the service keeps per case on purpose is bounded: the intake's dedup and correlation
 * caches (SVC_INTAKE_CACHE_ENTRIES, 10,000) and the folded stream states commands keep;
 * anything that grows with every case beyond them shows here. PGlite's own memory (the
 * engine's WASM memory, with its buffer cache) is not V8's heap and is not counted; on a
 * server the database's memory is another process's.
 *
 * Prints `name value baseline ratio target` once (the heap after collections varies
 * little between runs, unlike throughput). Engine: PGlite in a temp dir, or a fresh
 * database on the server of DATABASE_URL (dropped afterwards).
 *
 * First figure (2026-11-29, session 13, PGlite): 3.00x, 18.3 MB for 10k cases against 6.1
 * MB of JSON. With the intake cache at one entry a kind it was 0.53x, so the cache was
 * most of it; two heap snapshots around 5,000 cases showed why: each alert's cache entry
 * held the append's result through its `received` promise, and that result's `versions`
 * object, keyed by the alert's own stream ids, came with a hidden class of its own (a V8
 * map and descriptor array an alert). The entry now keeps a promise of nothing: 2.25-2.27x
 * on PGlite and 2.18x on a server. What is left per case, about 1.4 KB: the three cache
 * entries (the case's folded state with its title, key and times, the alert's state, the
 * correlation binding) with their keys and LRU bookkeeping, and about 2.5 MB of code V8
 * compiled during the run, which does not grow with cases (so fewer cases give a higher
 * ratio: 3.5x at 5,000 before the change).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { apiOf, benchLine, expectStatus, printReport, runBench, startBenchService, type BenchService } from './bench-service.ts';

const caseCount = Number(process.env.BENCH_MEMORY_CASES ?? 10_000);
const WARM_UP_CASES = 200;
const CONCURRENCY = 32;
const PAGE = 200;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** V8's used heap after two full collections, bytes. */
function settledHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Opens `count` cases, one detector alert each of a rule of its own named `prefix`-n, CONCURRENCY at a time. */
async function openCases(bench: BenchService, prefix: string, count: number): Promise<void> {
  let next = 0;
  const sender = async () => {
    for (let n = next++; n < count; n = next++) {
      const res = await fetch(`${bench.url}/webhooks/detector`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-token': 'bench' },
        body: JSON.stringify({
          alert_id: `${prefix}-alert-${n}`,
          rule: { id: `${prefix}-rule-${n}`, title: `${prefix} rule ${n}`, severity: 'medium' },
          matched_log: { source: { ip: `203.0.113.${n % 250}` }, user: { name: `user${n % 50}` } },
        }),
      });
      if (res.status !== 202) throw new Error(`alert ${n} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, sender));
}

/** Bytes of JSON of the cases `GET /cases` lists whose title starts with `prefix`, and how many there were. */
async function jsonOfCases(bench: BenchService, prefix: string): Promise<{ bytes: number; cases: number }> {
  const api = apiOf(bench, await bench.exchangeToken([{ team: null, role: 'admin' }], 'svc:cases:read'));
  let bytes = 0;
  let cases = 0;
  for (let offset = 0; ; offset += PAGE) {
    const page = (await expectStatus(api('GET', `/cases?limit=${PAGE}&offset=${offset}`), 200, 'list cases')) as {
      items: { title: string }[];
      has_more: boolean;
    };
    for (const item of page.items.filter((c) => c.title.startsWith(`${prefix} rule `))) {
      bytes += Buffer.byteLength(JSON.stringify(item));
      cases += 1;
    }
    if (!page.has_more) return { bytes, cases };
  }
}

async function main() {
  const bench = await startBenchService({ SVC_DETECTOR_BOOTSTRAP_SECRET: 'bench' });
  try {
    await openCases(bench, 'Warm', WARM_UP_CASES);
    const before = settledHeap();
    await openCases(bench, 'Memory', caseCount);
    const after = settledHeap();
    const json = await jsonOfCases(bench, 'Memory');
    if (json.cases !== caseCount) throw new Error(`expected ${caseCount} cases of the bench's rules, GET /cases listed ${json.cases}`);
    const per10k = (bytes: number) => (bytes * 10_000) / caseCount;
    printReport(`engine=${bench.service.opened.engine} cases=${caseCount} warm_up=${WARM_UP_CASES} concurrency=${CONCURRENCY}`, [
      benchLine('heap_bytes_per_10k_open_cases', per10k(after - before), per10k(json.bytes), '<= 3x'),
    ]);
  } finally {
    await bench.close();
  }
}

runBench(main);
