/**
 * `make bench-quick`: runs the benches named on the command line (`alert-intake`,
 * `case-list`, ...) one after another in this one process, so the service's modules load
 * once instead of once a bench (about 3-4 s each through tsx; a fifth of the quick run).
 * Each bench still opens its own service on its own fresh database and measures its
 * baseline in the same run. The figures are the quick ones, rougher than `make bench`'s,
 * where every bench has a process of its own; the memory bench keeps a process of its own
 * here too, because V8's heap and compiled code are what it measures.
 *
 * Exits 1 with the stack at the first bench that fails, as `make bench` stops there.
 */
import { benchFailed, queuedBenches } from './bench-service.ts';

process.env.BENCH_IN_ONE_PROCESS = '1';
for (const name of process.argv.slice(2)) {
  if (!/^[a-z-]+$/.test(name) || name === 'memory') throw new Error(`not a bench to run here: ${name}`);
  process.stdout.write(`bench ${name}\n`);
  await import(`./${name}.ts`);
  const main = queuedBenches.shift();
  if (main === undefined) throw new Error(`bench/${name}.ts queued no bench`);
  await main().catch(benchFailed);
}
process.exit(0);
