import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * One vitest project per floor of the test pyramid (docs/architecture.md "Tests"): `npx
 * vitest run --project unit` answers in seconds; `make test` runs them all.
 *
 * The floors that run in the test process (unit, integration) share one module graph on
 * threads and run first; the floors that need a process per file (contract, e2e: real
 * processes, SIGKILLs, their own timing budgets) run after them on forks, so the two pools
 * never compete for the two CPUs (`sequence.groupOrder`).
 */
const floor = (name: string, pool: 'threads' | 'forks', groupOrder: number) => ({
  extends: true as const,
  test: { name, include: [`tests/${name}/**/*.test.ts`], pool, sequence: { groupOrder } },
});

export default defineConfig({
  test: {
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Importing the service once per file cost 615 s of a 1,662 s run (2026-12-02): the threads
    // keep their module graph between files. Forks that kept theirs ran the e2e files two
    // at a time at the end, past scale-out-faults' budget: forks isolate every file.
    poolOptions: { threads: { isolate: false } },
    // Vitest's default (CPUs - 1) is one worker on a two-CPU machine, but most files spend
    // their time waiting on servers, sockets and timers: two workers there cut the suite's
    // wall time by a fifth (993 s to 799 s, 2026-11-24). Three threads were slower than two
    // (555 s against 469 s for the integration floor, 2026-12-05).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects: [floor('unit', 'threads', 0), floor('integration', 'threads', 0), floor('contract', 'forks', 1), floor('e2e', 'forks', 1)],
  },
});
