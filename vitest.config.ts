import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * One vitest project per floor of the test pyramid (docs/architecture.md "Tests"): `npx
 * vitest run --project unit` answers in seconds; `make test` runs them all.
 *
 * Every floor runs on forks, never threads: PGlite's WebAssembly in several threads of one
 * process races V8's process-wide registry of JIT code pages, and the process dies on a
 * failed CHECK (`jit_page_->allocations_.erase(addr) == 1`, exit 133; nodejs/node#64500),
 * which took a CI run down on 2026-12-06. The floors that run in the test process (unit,
 * integration) keep their module graph between files and run first; the floors that need
 * a fresh module graph per file (contract, e2e: real processes, SIGKILLs, their own timing
 * budgets) run after them (`sequence.groupOrder`), so the two never compete for the CPUs.
 */
/** A floor of the pyramid; `isolate: false` keeps the fork's module graph from one file to the next. */
const floor = (name: string, isolate: boolean, groupOrder: number) => ({
  extends: true as const,
  test: { name, include: [`tests/${name}/**/*.test.ts`], poolOptions: { forks: { isolate } }, sequence: { groupOrder } },
});

export default defineConfig({
  test: {
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Importing the service once per file cost 615 s of a 1,662 s run (2026-12-02): a fork
    // reused from file to file keeps its module graph where its floor allows (`isolate` per
    // floor above). On forks the whole suite took 608 s against about 610 s on threads (2026-12-06).
    pool: 'forks',
    poolOptions: { forks: { isolate: false } },
    // Vitest's default (CPUs - 1) is one worker on a two-CPU machine, but most files spend
    // their time waiting on servers, sockets and timers: two workers there cut the suite's
    // wall time by a fifth (993 s to 799 s, 2026-11-24). Three workers were slower than two
    // (555 s against 469 s for the integration floor, 2026-12-05).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects: [floor('unit', false, 0), floor('integration', false, 0), floor('contract', true, 1), floor('e2e', true, 1)],
  },
});
