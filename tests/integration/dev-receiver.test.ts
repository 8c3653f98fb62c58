/**
 * `svc dev receiver` (the README's first session) as a real process: it verifies a
 * delivery's Standard Webhooks signature and prints it, and on a port already in use it
 * says so in one line and exits 1 instead of dying on an unhandled 'error' event.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook } from '../../adapters/actions/notify-webhook.ts';
import { repoRoot } from '../support/fixtures.ts';
import { freePort } from '../support/service-process.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('svc dev receiver', () => {
  it('prints each delivery with its signature verdict', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/svc.js', 'dev', 'receiver', '--port', String(port), '--secret', secret], { cwd: repoRoot });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('receiver listening');
      const body = JSON.stringify({ type: 'svc.test' });
      const timestamp = Math.floor(Date.now() / 1000);
      const res = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: 'POST',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signStandardWebhook(secret, 'msg_1', timestamp, body) },
        body,
      });
      expect(res.status).toBe(204);
      await expect.poll(() => out).toContain('"signature_valid":true');
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);

  it('says the port is in use in one line and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const run = await promisify(execFile)(process.execPath, ['bin/svc.js', 'dev', 'receiver', '--port', String(port), '--secret', secret], {
        cwd: repoRoot,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`svc: port ${port} is already in use on 127.0.0.1: set --port to a free port`);
    } finally {
      holder.close();
    }
  }, 30_000);
});
