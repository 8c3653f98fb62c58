/**
 * Connection secrets at rest (SPEC.md "Connection"; "Authentication", secrets paragraph):
 * the secret box, the key loader, and the store on every engine.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../adapters/connections/secret-box.ts';
import { createConnectionStore, type ConnectionStore } from '../../adapters/connections/store.ts';
import { loadSecretKey } from '../../runtime/secret-key.ts';
import { engines } from '../support/engines.ts';

const SECRET = 'pa55-w0rd-never-shown';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips with a fresh nonce each time', () => {
    const a = box.seal('héllo 🔑', 'connections/1');
    const b = box.seal('héllo 🔑', 'connections/1');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(box.open(a, 'connections/1')).toBe('héllo 🔑');
    expect(box.open(box.seal('', 'x'), 'x')).toBe('');
  });

  it('refuses tampering, another aad, another key and malformed input', () => {
    const sealed = box.seal(SECRET, 'connections/1');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    for (const index of [0, 12, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[index]! ^= 1;
      expect(() => box.open(`v1.${tampered.toString('base64url')}`, 'connections/1')).toThrow();
    }
    expect(() => box.open(sealed, 'connections/2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'connections/1')).toThrow();
    expect(() => box.open(`v2.${sealed.slice(3)}`, 'connections/1')).toThrow();
    expect(() => box.open('v1.AAAA', 'connections/1')).toThrow();
  });

  it('needs a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('loadSecretKey', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-key-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes SVC_SECRET_KEY and refuses anything but 32 bytes without printing it', () => {
    const key = randomBytes(32);
    expect(Buffer.from(loadSecretKey({ SVC_SECRET_KEY: key.toString('base64'), DATABASE_URL: 'postgres://x' }, dir))).toEqual(key);
    expect(Buffer.from(loadSecretKey({ SVC_SECRET_KEY: key.toString('base64url') }, dir))).toEqual(key);
    for (const bad of [randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), 'not-a-key!', '']) {
      let message = '';
      try {
        loadSecretKey({ SVC_SECRET_KEY: bad }, dir);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('SVC_SECRET_KEY');
      if (bad) expect(message).not.toContain(bad);
    }
  });

  it('requires SVC_SECRET_KEY with DATABASE_URL', () => {
    expect(() => loadSecretKey({ DATABASE_URL: 'postgres://db/svc' }, dir)).toThrow('SVC_SECRET_KEY is required when DATABASE_URL is set');
  });

  it('generates <dataDir>/secret.key once (mode 0600) and reuses it', () => {
    const dataDir = join(dir, 'data');
    const first = loadSecretKey({}, dataDir);
    expect(first.byteLength).toBe(32);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadSecretKey({}, dataDir))).toEqual(Buffer.from(first));
    writeFileSync(join(dir, 'secret.key'), 'garbage\n');
    expect(() => loadSecretKey({}, dir)).toThrow(/secret\.key must be base64/);
  });
});

describe.each(engines)('connection store on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  let store: ConnectionStore;
  let now = new Date('2026-11-02T10:00:00.000Z');

  beforeAll(async () => {
    opened = await engine.open();
    store = createConnectionStore(opened.db, createSecretBox(randomBytes(32)), randomUUID, () => now, 24 * 3600 * 1000);
  });
  afterAll(async () => opened.close());

  it('creates, lists and gets connections without ever showing the secret', async () => {
    const created = await store.create({
      kind: 'http',
      name: 'intel',
      base_url: 'https://intel.example/api',
      config: { auth_header: 'X-Key' },
      secret: SECRET,
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'http',
      name: 'intel',
      base_url: 'https://intel.example/api',
      config: { auth_header: 'X-Key', test_mode: false },
      secret_configured: true,
      rotation_overlap_until: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    const plain = await store.create({ kind: 'webhook', name: 'hook', base_url: 'https://hooks.example' });
    expect(plain).toMatchObject({ secret_configured: false, config: {} });
    const listed = await store.list();
    expect(listed.map((c) => c.name)).toEqual(['hook', 'intel']);
    expect(await store.get(created.id)).toEqual(created);
    expect(JSON.stringify([created, listed, await store.get(created.id)])).not.toContain(SECRET);
  });

  it('stores only ciphertext, bound to the row, and decrypts for the worker', async () => {
    const row = await opened.db.selectFrom('connections').selectAll().where('name', '=', 'intel').executeTakeFirstOrThrow();
    expect(row.secret_ciphertext).toMatch(/^v1\./);
    expect(row.secret_ciphertext).not.toContain(SECRET);
    expect(await store.resolveByName('intel')).toEqual({
      id: row.id,
      kind: 'http',
      name: 'intel',
      base_url: 'https://intel.example/api',
      config: { auth_header: 'X-Key', test_mode: false },
      secret: SECRET,
      previous_secret: null,
      bot_token: null,
    });
    expect(await store.resolveByName('hook')).toMatchObject({ secret: null });
    expect(await store.resolveByName('absent')).toBeNull();
    // A ciphertext copied onto another connection does not open there.
    await opened.db.updateTable('connections').set({ secret_ciphertext: row.secret_ciphertext }).where('name', '=', 'hook').execute();
    const error = await store.resolveByName('hook').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/connection 'hook' cannot be decrypted/);
    expect(error?.message).not.toContain(SECRET);
  });

  it('answers 409 connection_name_taken for a duplicate name', async () => {
    await expect(store.create({ kind: 'http', name: 'intel', secret: 'other' })).rejects.toMatchObject({
      status: 409,
      code: 'connection_name_taken',
      params: { name: 'intel' },
    });
  });

  it('answers 422 for a detector connection sent with a secret, and accepts one without', async () => {
    const refused = await store.create({ kind: 'detector', name: 'det', secret: SECRET }).then(
      () => null,
      (e: unknown) => e as Error & { status: number; code: string },
    );
    expect(refused).toMatchObject({ status: 422, code: 'detector_connection_secret_refused' });
    expect(JSON.stringify(refused) + String(refused?.message)).not.toContain(SECRET);
    expect(await store.create({ kind: 'detector', name: 'det', base_url: 'https://det.example' })).toMatchObject({ secret_configured: false });
  });

  it('answers 404 connection_not_found for an unknown or malformed id', async () => {
    await expect(store.get(randomUUID())).rejects.toMatchObject({ status: 404, code: 'connection_not_found' });
    await expect(store.get('not-a-uuid')).rejects.toMatchObject({ status: 404, code: 'connection_not_found' });
  });

  it('rotates: the old secret works alongside the new until the overlap deadline, then only the new one', async () => {
    const created = await store.create({ kind: 'webhook', name: 'rotating', base_url: 'https://hooks.example', secret: 'whsec_old-old-old' });
    const rotated = await store.rotate(created.id, 'whsec_new-new-new');
    const deadline = new Date(now.getTime() + 24 * 3600 * 1000).toISOString();
    expect(rotated).toMatchObject({ secret_configured: true, rotation_overlap_until: deadline });
    expect(await store.get(created.id)).toMatchObject({ rotation_overlap_until: deadline });
    expect(await store.resolveByName('rotating')).toMatchObject({ secret: 'whsec_new-new-new', previous_secret: 'whsec_old-old-old' });
    expect(JSON.stringify([rotated, await store.list()])).not.toMatch(/old-old|new-new/);
    const before = now;
    now = new Date(now.getTime() + 24 * 3600 * 1000 + 1);
    expect(await store.resolveByName('rotating')).toMatchObject({ secret: 'whsec_new-new-new', previous_secret: null });
    expect(await store.get(created.id)).toMatchObject({ rotation_overlap_until: null });
    now = before;
  });

  it('updates fields, replaces a secret at once through update, and deletes', async () => {
    const created = await store.create({ kind: 'http', name: 'to-change', base_url: 'https://a.example', secret: 'first' });
    await store.rotate(created.id, 'second');
    const changed = await store.update(created.id, { name: 'changed', base_url: null, config: { auth_prefix: 'Token' }, secret: 'third' });
    expect(changed).toMatchObject({ name: 'changed', base_url: null, config: { auth_prefix: 'Token' }, rotation_overlap_until: null, secret_configured: true });
    expect(await store.resolveByName('changed')).toMatchObject({ secret: 'third', previous_secret: null });
    expect((await store.update(created.id, { secret: null })).secret_configured).toBe(false);
    await expect(store.update(created.id, { name: 'intel' })).rejects.toMatchObject({ status: 409, code: 'connection_name_taken' });
    const detector = await store.create({ kind: 'detector', name: 'det-2' });
    await expect(store.rotate(detector.id, 'x')).rejects.toMatchObject({ status: 422, code: 'detector_connection_secret_refused' });
    await expect(store.update(detector.id, { secret: 'x' })).rejects.toMatchObject({ status: 422 });
    await store.remove(created.id);
    await expect(store.get(created.id)).rejects.toMatchObject({ status: 404, code: 'connection_not_found' });
    await expect(store.remove(created.id)).rejects.toMatchObject({ status: 404 });
  });
  it("seals a chat_a connection's bot token beside its signing secret, and refuses one on other kinds", async () => {
    const chat = await store.create({ kind: 'chat_a', name: 'slack', base_url: 'https://slack.com/api', secret: 'signing', bot_token: 'xoxb-1-2-bot' });
    expect(chat).toMatchObject({ secret_configured: true, bot_token_configured: true, config: { response_origin: 'https://hooks.slack.com' } });
    expect(JSON.stringify(chat)).not.toContain('xoxb');
    const row = await opened.db.selectFrom('connections').select('bot_token_ciphertext').where('id', '=', chat.id).executeTakeFirstOrThrow();
    expect(row.bot_token_ciphertext).toMatch(/^v1\./);
    expect(await store.resolveByName('slack')).toMatchObject({ secret: 'signing', bot_token: 'xoxb-1-2-bot' });
    expect(await store.resolveAllOfKind('chat_a')).toMatchObject([{ name: 'slack', secret: 'signing', bot_token: 'xoxb-1-2-bot' }]);
    expect((await store.update(chat.id, { bot_token: null })).bot_token_configured).toBe(false);
    expect(await store.resolveByName('slack')).toMatchObject({ secret: 'signing', bot_token: null });
    await expect(store.create({ kind: 'http', name: 'not-chat', bot_token: 'xoxb' })).rejects.toMatchObject({ status: 422, code: 'bot_token_refused' });
    expect(await store.create({ kind: 'http', name: 'plain-http' })).not.toHaveProperty('bot_token_configured');
    await expect(store.create({ kind: 'chat_a', name: 'bad-origin', config: { response_origin: 'https://hooks.slack.com/x' } })).rejects.toMatchObject({
      issues: [{ loc: ['body', 'config', 'response_origin'] }],
    });
  });
});
