/**
 * The filesystem file store (adapters/attachments/filesystem.ts): content-addressed
 * commits, and no file, temporary or final, after a cap overrun, a failing source or a
 * discard.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFilesystemStore } from '../../adapters/attachments/filesystem.ts';
import { FileTooLarge } from '../../adapters/attachments/port.ts';

describe('filesystem file store', () => {
  let dir = '';
  const root = () => join(dir, 'attachments');
  const entries = () => readdirSync(root()).sort();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('computes sha256 and size while staging and serves the file by its sha256 once committed', async () => {
    const bytes = randomBytes(100_000);
    const store = createFilesystemStore(root());
    const staged = await store.stage(Readable.from([bytes.subarray(0, 30_000), bytes.subarray(30_000)]), bytes.length);
    expect(staged).toMatchObject({ sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
    expect(await store.open(staged.sha256)).toBeNull();
    await staged.commit();
    await staged.discard();
    expect(entries()).toEqual([staged.sha256]);
    const opened = await store.open(staged.sha256);
    expect(opened?.size).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const chunk of opened?.stream ?? []) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('stores equal content once', async () => {
    const store = createFilesystemStore(root());
    for (let i = 0; i < 2; i++) await (await store.stage(Readable.from([Buffer.from('same')]), 10)).commit();
    expect(entries()).toHaveLength(1);
    expect(await text((await store.open(createHash('sha256').update('same').digest('hex')))?.stream ?? Readable.from([]))).toBe('same');
  });

  it('removes the temporary file past the cap, on a failing source and on discard', async () => {
    const store = createFilesystemStore(root());
    await expect(store.stage(Readable.from([randomBytes(600), randomBytes(600)]), 1000)).rejects.toBeInstanceOf(FileTooLarge);
    const failing = new Readable({
      read() {
        this.push(randomBytes(100));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.stage(failing, 1000)).rejects.toThrow('client went away');
    await (await store.stage(Readable.from([Buffer.from('kept out')]), 1000)).discard();
    expect(entries()).toEqual([]);
  });

  it('leaves no temporary file when the cap is hit before the file finished opening', async () => {
    const store = createFilesystemStore(root());
    for (let i = 0; i < 20; i++) {
      await expect(store.stage(Readable.from([randomBytes(2000)]), 1000)).rejects.toBeInstanceOf(FileTooLarge);
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(entries()).toEqual([]);
  });

  it('removes a committed file unless it was written after the cut-off, and answers false for none', async () => {
    const store = createFilesystemStore(root());
    const staged = await store.stage(Readable.from([Buffer.from('old evidence')]), 100);
    await staged.commit();
    expect(await store.remove(staged.sha256, new Date(Date.now() - 60_000))).toBe(false);
    expect(entries()).toEqual([staged.sha256]);
    expect(await store.remove(staged.sha256, new Date(Date.now() + 60_000))).toBe(true);
    expect(entries()).toEqual([]);
    expect(await store.remove(staged.sha256, new Date(Date.now() + 60_000))).toBe(false);
  });

  it('refuses a key that is not a sha256', async () => {
    await expect(createFilesystemStore(root()).open('../secret.key')).rejects.toThrow('sha256');
  });
});
