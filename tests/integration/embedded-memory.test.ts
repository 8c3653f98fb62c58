/**
 * The embedded engine's buffer cache (SVC_EMBEDDED_SHARED_BUFFERS; docs/configuration.md):
 * what bounds one process's resident memory on PGlite (issue 48, `make bench` idle_rss_mb).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/db/connect.ts';
import { loadConfig } from '../../runtime/config.ts';

describe('SVC_EMBEDDED_SHARED_BUFFERS', () => {
  it('defaults to 32MB, takes a PostgreSQL size, and refuses anything else at start', () => {
    expect(loadConfig({}).embeddedSharedBuffers).toBe('32MB');
    expect(loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS: '64MB' }).embeddedSharedBuffers).toBe('64MB');
    expect(loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS: '2048kB' }).embeddedSharedBuffers).toBe('2048kB');
    for (const bad of ['32', '32mb', '0MB', '512kB', '-1GB', '1.5GB', '32 MB']) {
      expect(() => loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS: bad }), bad).toThrow(/SVC_EMBEDDED_SHARED_BUFFERS must be a size such as 32MB/);
    }
  });

  it("is the data directory's shared_buffers", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-embedded-memory-'));
    const opened = await openDatabase({ dataDir: dir, sharedBuffers: '16MB' });
    try {
      const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(opened.db);
      expect(rows).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
