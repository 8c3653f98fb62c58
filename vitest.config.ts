import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * One vitest project per floor of the test pyramid (docs/architecture.md "Tests"): `npx
 * vitest run --project unit` answers in seconds; `make test` runs them all.
 */
const floor = (name: string, pool?: 'threads') => ({
  extends: true as const,
  test: { name, include: [`tests/${name}/**/*.test.ts`], ...(pool ? { pool } : {}) },
});

export default defineConfig({
  test: {
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Isolation is a pool's, not a project's: the unit floor runs on threads that share their
    // module graph (pure code, no process state), everything else in a process per file.
    // Forks sharing theirs cut collect from 615 s to 83 s (2026-12-02), but vitest then runs
    // the projects one after another and pairs the heavy e2e files, and scale-out-faults
    // passed its 180 s budget in CI: see docs/architecture.md "Tests".
    poolOptions: { threads: { isolate: false } },
    // Vitest's default (CPUs - 1) is one worker on a two-CPU machine, but most files spend
    // their time waiting on servers, sockets and timers: two workers there cut the suite's
    // wall time by a fifth (993 s to 799 s, 2026-11-24), every file passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects: [floor('unit', 'threads'), floor('contract'), floor('integration'), floor('e2e')],
  },
});
