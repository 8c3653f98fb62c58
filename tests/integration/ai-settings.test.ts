/**
 * The install's AI settings on the real service, on every engine (SPEC.md "AI settings",
 * "Authentication"; docs/suite-contracts.md "AI settings peer route"; docs/configuration.md
 * "AI settings"): who may call each route, the two write bodies of the provider half and
 * the key rule, the admin's usage half, the effective status and the operator's kill
 * switch, one audit entry per real change, and that the key is never in an answer, an
 * audit entry or the table in clear. Every answer is held to /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAiSettingsStore } from '../../adapters/ai/settings-store.ts';
import { createSecretBox } from '../../adapters/connections/secret-box.ts';
import { aiStatusOf, normalizeAiBaseUrl } from '../../domain/ai/settings.ts';
import { loadConfig } from '../../runtime/config.ts';
import {
  assertionAs,
  callAs,
  expectDeclared,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestAnswer,
} from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const PATH = '/peer/v1/settings/ai';
const READ = 'svc:peer:ai:read';
const WRITE = 'svc:peer:ai:write';
const KEY = 'sk-live-7f3a9c1e-first-provider-key';
const KEY_2 = 'sk-live-second-provider-key-b81d';

const root = testPerson('ai-root@example.com', [{ team: null, role: 'admin' }]);
const teamAdmin = testPerson('ai-team-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ai-ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = testPerson('ai-vic@example.com', [{ team: 'red', role: 'viewer' }]);
const nobody = testPerson('ai-nobody@example.com', []);

const usageDefaults = { data_classes: ['alerts'], max_tokens: 512, temperature: 0.3, timeout_seconds: 20 };
const usageEnv = {
  SVC_AI_DEFAULT_DATA_CLASSES: 'alerts',
  SVC_AI_DEFAULT_MAX_TOKENS: '512',
  SVC_AI_DEFAULT_TEMPERATURE: '0.3',
  SVC_AI_DEFAULT_TIMEOUT_SECONDS: '20',
};

type Answer = TestAnswer & { cache: string | null };

/** A request to `path` with `token`; JSON `body` or a raw body text; the answer is held to /openapi.json. */
async function request(svc: InProcessService, method: string, path: string, token: string, body?: unknown, rawBody?: string): Promise<Answer> {
  const sends = body !== undefined || rawBody !== undefined;
  const res = await svc.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(sends ? { 'content-type': 'application/json' } : {}) },
    ...(rawBody !== undefined ? { body: rawBody } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  await expectDeclared(svc, method, path, res, text);
  return { status: res.status, body: text === '' ? null : JSON.parse(text), text, cache: res.headers.get('cache-control') };
}

const serviceToken = (svc: InProcessService, scope: string, extra: Record<string, unknown> = {}) =>
  svc.identity.sign({ token_use: 'service', sub: 'identity', scope, ...extra });

describe.each(e2eEngines)('AI settings on $name', ({ server }) => {
  let svc: InProcessService;
  /** Every answer text this suite got, to show no key was ever in one. */
  const answers: string[] = [];

  const peer = async (method: 'GET' | 'PUT', body?: unknown, token?: string, rawBody?: string) => {
    const res = await request(svc, method, PATH, token ?? (await serviceToken(svc, method === 'GET' ? READ : WRITE)), body, rawBody);
    answers.push(res.text);
    return res;
  };
  const peerOk = async (method: 'GET' | 'PUT', body?: unknown) => {
    const res = await peer(method, body);
    expect(res.status, res.text).toBe(200);
    expect(res.cache).toBe('no-store');
    return res.body;
  };
  const as = async (who: typeof root, method: string, path: string, body?: unknown) => {
    const res = await callAs(svc, who, method, path, body);
    answers.push(res.text);
    return res;
  };
  const stored = () => svc.service.opened.db.selectFrom('ai_settings').selectAll().execute();
  const settingsEntries = async () => {
    const res = await as(root, 'GET', '/audit?action=ai.settings.updated&limit=500');
    expect(res.status, res.text).toBe(200);
    return res.body.items as { action: string; actor: Record<string, unknown>; target: unknown; team: unknown; detail: Record<string, unknown> }[];
  };
  /** The store as the AI call path reads it, over the service's database and secret key. */
  const callPath = () =>
    createAiSettingsStore({
      db: svc.service.opened.db,
      box: createSecretBox(Buffer.from(svc.env.SVC_SECRET_KEY ?? '', 'base64')),
      now: () => new Date(),
      defaults: { ...usageDefaults, data_classes: ['alerts'] },
    });
  const fullConfig = { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1/', model: 'gpt-test', api_key: KEY };

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: usageEnv });
    for (const p of [root, teamAdmin, ana, vic]) expect((await callAs(svc, p, 'GET', '/auth/me')).status).toBe(200);
  }, 120_000);
  afterAll(async () => svc?.close());

  it('reads as AI off, no provider and the configured usage defaults before anything is written, and stores nothing', async () => {
    expect(await peerOk('GET')).toEqual({ enabled: false, provider: null, base_url: null, model: null, key_configured: false });
    const usage = await as(root, 'GET', '/settings/ai');
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body).toEqual(usageDefaults);
    const status = await as(ana, 'GET', '/settings/ai/status');
    expect(status.status, status.text).toBe(200);
    expect(status.body).toEqual({ enabled: false, provider: null, model: null });
    expect(await stored()).toEqual([]);
  });

  describe('who may call the peer route', () => {
    it.each([
      ['GET', READ, undefined],
      ['PUT', WRITE, { enabled: true }],
    ] as const)('%s refuses every caller but identity’s own token with scope %s', async (method, scope, body) => {
      const refused = async (token: string) => {
        const res = await peer(method, body, token);
        expect(res.status, res.text).toBe(403);
        expect(res.body.code).toBe('forbidden');
      };
      // A person's own assertion, a realm admin's included.
      for (const who of [root, teamAdmin, ana]) await refused(await assertionAs(svc, who, method, PATH));
      // A workload's exchange token acting for a realm admin, even with the AI scopes.
      await refused(await svc.identity.sign({ token_use: 'exchange', sub: 'workload', scope: `${READ} ${WRITE} svc:admin:read svc:admin:write`, act: root }));
      // identity's token without the route's scope: the status scope, the other AI scope.
      await refused(await serviceToken(svc, 'svc:peer:status:read'));
      await refused(await serviceToken(svc, method === 'GET' ? WRITE : READ));
      // identity's token minted for a signed-in person.
      await refused(await serviceToken(svc, scope, { actor_sub: root.sub }));
      expect(await stored()).toEqual([]);
      expect(await settingsEntries()).toEqual([]);
    });

    it('answers 401 without a token', async () => {
      const res = await svc.request(`${PATH}`);
      expect(res.status).toBe(401);
    });
  });

  describe('the provider half', () => {
    let entries = 0;
    /** The audit entries written since the last call: exactly `changes` more. */
    const newEntries = async (changes: number) => {
      const all = await settingsEntries();
      expect(all.length - entries, JSON.stringify(all)).toBe(changes);
      const fresh = all.slice(entries);
      entries = all.length;
      return fresh;
    };
    const identityActor = { id: null, email: null, subject: 'identity', kind: 'workload', via: null };

    it('takes {enabled} alone, audited as identity; the same write again changes nothing and is not audited', async () => {
      expect(await peerOk('PUT', { enabled: true })).toEqual({ enabled: true, provider: null, base_url: null, model: null, key_configured: false });
      expect(await newEntries(1)).toEqual([
        expect.objectContaining({
          action: 'ai.settings.updated',
          actor: identityActor,
          target: null,
          team: null,
          detail: { half: 'provider', changed: ['enabled'] },
        }),
      ]);
      expect(await peerOk('PUT', { enabled: true })).toMatchObject({ enabled: true });
      await newEntries(0);
      // Enabled without a provider is not effectively on.
      expect((await as(ana, 'GET', '/settings/ai/status')).body).toEqual({ enabled: false, provider: null, model: null });
    });

    it('takes a full configuration, keeps the key sealed and answers key_configured only', async () => {
      const view = await peerOk('PUT', fullConfig);
      expect(view).toEqual({ enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-test', key_configured: true });
      expect(await peerOk('GET')).toEqual(view);
      const [entry] = await newEntries(1);
      expect(entry?.detail).toEqual({ half: 'provider', changed: ['api_key', 'base_url', 'model', 'provider'] });
      const [row] = await stored();
      expect(row?.api_key_sealed).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(KEY);
      expect(JSON.stringify(row)).not.toContain(Buffer.from(KEY).toString('base64'));
      expect((await callPath().read()).api_key).toBe(KEY);
    });

    it('keeps the stored key when it is left out and provider and base_url stay the same', async () => {
      // The same base_url as stored, written without the trailing slash this time.
      const view = await peerOk('PUT', { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-test-2' });
      expect(view).toMatchObject({ key_configured: true, model: 'gpt-test-2', base_url: 'https://ai.example.test/v1' });
      expect((await newEntries(1))[0]?.detail).toEqual({ half: 'provider', changed: ['model'] });
      expect((await callPath().read()).api_key).toBe(KEY);
      // The same key sent again is no change either.
      await peerOk('PUT', { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-test-2', api_key: KEY });
      await newEntries(0);
    });

    it('refuses 422 ai_invalid_config to a new provider or base_url without a new key, and changes nothing', async () => {
      const before = await stored();
      const moved = [
        [{ base_url: 'https://other.example.test/v1' }, 'base_url'],
        [{ provider: 'vendor_a' }, 'provider'],
        [{ provider: 'local_daemon', base_url: 'http://127.0.0.1:11434' }, 'provider'],
      ] as const;
      for (const [change, field] of moved) {
        const res = await peer('PUT', { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-test-2', ...change });
        expect(res.status, res.text).toBe(422);
        expect(res.body).toMatchObject({ code: 'ai_invalid_config', params: { field } });
      }
      expect(await stored()).toEqual(before);
      await newEntries(0);
      expect((await callPath().read()).api_key).toBe(KEY);
    });

    it('moves to another endpoint with a new key, and removes the key with api_key: null', async () => {
      const moved = await peerOk('PUT', { ...fullConfig, base_url: 'https://other.example.test/v2', api_key: KEY_2 });
      expect(moved).toMatchObject({ base_url: 'https://other.example.test/v2', key_configured: true });
      expect((await newEntries(1))[0]?.detail).toEqual({ half: 'provider', changed: ['api_key', 'base_url', 'model'] });
      expect((await callPath().read()).api_key).toBe(KEY_2);

      const keyless = await peerOk('PUT', {
        enabled: true,
        provider: 'local_daemon',
        base_url: 'http://127.0.0.1:11434/',
        model: 'llama3.1:8b',
        api_key: null,
      });
      expect(keyless).toEqual({ enabled: true, provider: 'local_daemon', base_url: 'http://127.0.0.1:11434', model: 'llama3.1:8b', key_configured: false });
      expect((await newEntries(1))[0]?.detail).toEqual({ half: 'provider', changed: ['api_key', 'base_url', 'model', 'provider'] });
      expect((await stored())[0]?.api_key_sealed).toBeNull();
      // With no key stored there is none to carry over: the endpoint may change without one.
      expect(await peerOk('PUT', { enabled: true, provider: 'local_daemon', base_url: 'http://127.0.0.1:11500', model: 'llama3.1:8b' })).toMatchObject({
        base_url: 'http://127.0.0.1:11500',
        key_configured: false,
      });
      expect((await newEntries(1))[0]?.detail).toEqual({ half: 'provider', changed: ['base_url'] });
      // Back to the keyed provider for what follows.
      await peerOk('PUT', fullConfig);
      await newEntries(1);
    });

    it('never pairs a key with an endpoint it was not given for when another write lands between a write’s read and its own', async () => {
      const first = { enabled: true, provider: 'compatible_api' as const, base_url: 'https://ai.example.test/v1', model: 'gpt-test' };
      // Writer B reads the row, then stalls until writer A has moved to another endpoint with its own key.
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let stalled = () => {};
      const bHasRead = new Promise<void>((r) => {
        stalled = r;
      });
      let armed = true;
      // The stall comes after the read has given its connection back: the embedded engine has only one.
      const stallAfter = <T extends object>(builder: T): T =>
        new Proxy(builder, {
          get(target, prop) {
            const value = Reflect.get(target, prop);
            if (typeof value !== 'function') return value;
            if (prop === 'executeTakeFirst') {
              return async (...args: unknown[]) => {
                const row = await value.apply(target, args);
                if (armed) {
                  armed = false;
                  stalled();
                  await gate;
                }
                return row;
              };
            }
            return (...args: unknown[]) => {
              const next = value.apply(target, args);
              return typeof next === 'object' && next !== null && 'executeTakeFirst' in next ? stallAfter(next) : next;
            };
          },
        });
      const db = svc.service.opened.db;
      const stallingDb = new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop);
          if (prop === 'selectFrom') return (...args: Parameters<typeof db.selectFrom>) => stallAfter(target.selectFrom(...args));
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const a = callPath();
      const b = createAiSettingsStore({
        db: stallingDb,
        box: createSecretBox(Buffer.from(svc.env.SVC_SECRET_KEY ?? '', 'base64')),
        now: () => new Date(),
        defaults: { ...usageDefaults, data_classes: ['alerts'] },
      });
      await a.putProvider({ ...first, api_key: KEY });
      // B keeps the key (same provider and base_url as it read); A moves endpoint and key meanwhile.
      const late = b.putProvider({ ...first, model: 'gpt-stale' });
      await bHasRead;
      await a.putProvider({ ...first, base_url: 'https://other.example.test/v2', api_key: KEY_2 });
      release();
      // B decides again on what is stored now: the endpoint it names lost its key, so it is refused.
      await expect(late).rejects.toMatchObject({ code: 'ai_invalid_config', params: { field: 'base_url' } });
      expect(await a.read()).toMatchObject({ base_url: 'https://other.example.test/v2', api_key: KEY_2 });
      // Back to the keyed provider for what follows (these direct writes were not audited).
      await peerOk('PUT', fullConfig);
      entries = (await settingsEntries()).length;
    });

    it('answers 400 peer_bad_request naming the field to a bad body, never repeating a key, and changes nothing', async () => {
      const before = await stored();
      const config = { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-test' };
      const leakedKey = `${'k'.repeat(4097)}`;
      const bad: [unknown, string][] = [
        [{ enabled: 'yes' }, 'enabled'],
        [{ enabled: true, extra: 1 }, 'extra'],
        [{ ...config, provider: 'other_vendor' }, 'provider'],
        [{ ...config, base_url: 'ftp://ai.example.test' }, 'base_url'],
        [{ ...config, base_url: 'https://user:pass@ai.example.test' }, 'base_url'],
        [{ ...config, base_url: 'https://ai.example.test/v1?key=1' }, 'base_url'],
        [{ ...config, base_url: 'https://ai.example.test/v1#x' }, 'base_url'],
        [{ ...config, base_url: '/v1' }, 'base_url'],
        [{ ...config, base_url: `https://ai.example.test/${'p'.repeat(2100)}` }, 'base_url'],
        [{ ...config, model: '' }, 'model'],
        [{ ...config, model: 'm'.repeat(201) }, 'model'],
        [{ ...config, model: 'bad\u0007model' }, 'model'],
        [{ ...config, model: ' padded' }, 'model'],
        [{ ...config, api_key: '' }, 'api_key'],
        [{ ...config, api_key: leakedKey }, 'api_key'],
        [{ ...config, api_key: 'sk-with\nnewline' }, 'api_key'],
        [{ ...config, api_key: 12345678 }, 'api_key'],
        [{ enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1' }, 'model'],
        [{ ...config, enabled: undefined }, 'enabled'],
        [{ ...config, key_configured: true }, 'key_configured'],
      ];
      for (const [body, field] of bad) {
        const res = await peer('PUT', body);
        expect(res.status, `${JSON.stringify(body).slice(0, 200)}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ code: 'peer_bad_request', params: { field } });
        expect(res.text).not.toContain('kkkkkkkk');
        expect(res.text).not.toContain('12345678');
        expect(res.text).not.toContain('newline');
      }
      for (const raw of ['{"enabled": tru', '', 'null', '[]', '"enabled"', `{"enabled": true, "provider": "vendor_a", "api_key": "${KEY_2}"`]) {
        const res = await peer('PUT', undefined, undefined, raw);
        expect(res.status, `${raw}: ${res.text}`).toBe(400);
        expect(res.body.code).toBe('peer_bad_request');
        expect(res.text).not.toContain(KEY_2);
      }
      expect(await stored()).toEqual(before);
      await newEntries(0);
    });

    it('is declared in /openapi.json with both methods', async () => {
      const doc = (await (await svc.request('/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
      expect(Object.keys(doc.paths[PATH] ?? {}).sort()).toEqual(['get', 'put']);
      expect(doc.paths[PATH]?.put?.requestBody?.content?.['application/json']?.schema).toBeDefined();
      expect(Object.keys(doc.paths['/settings/ai'] ?? {}).sort()).toEqual(['get', 'put']);
      expect(doc.paths['/settings/ai/status']).toHaveProperty('get');
    });
  });

  describe('the usage half (admin)', () => {
    const usage = { data_classes: ['cases', 'alerts', 'cases'], max_tokens: 2048, temperature: 0.5, timeout_seconds: 60 };

    it('is admin-only and install-wide', async () => {
      for (const who of [ana, vic, teamAdmin]) {
        expect((await as(who, 'GET', '/settings/ai')).status).toBe(403);
        expect((await as(who, 'PUT', '/settings/ai', usage)).status).toBe(403);
      }
      for (const scope of [READ, WRITE]) {
        const res = await request(svc, 'PUT', '/settings/ai', await serviceToken(svc, scope), usage);
        expect(res.status, res.text).toBe(403);
      }
      const readOnly = await svc.identity.sign({ token_use: 'exchange', sub: 'workload', scope: 'svc:admin:read', act: root });
      expect((await request(svc, 'PUT', '/settings/ai', readOnly, usage)).status).toBe(403);
      expect((await request(svc, 'GET', '/settings/ai', readOnly)).status).toBe(200);
      expect((await as(root, 'GET', '/settings/ai')).body).toEqual(usageDefaults);
    });

    it('takes all four fields, de-duplicates the data classes, audits the admin once per real change', async () => {
      const before = (await settingsEntries()).length;
      const provider = await peerOk('GET');
      const res = await as(root, 'PUT', '/settings/ai', usage);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ data_classes: ['alerts', 'cases'], max_tokens: 2048, temperature: 0.5, timeout_seconds: 60 });
      expect((await as(root, 'GET', '/settings/ai')).body).toEqual(res.body);
      // The same allowlist in another order is no change.
      expect((await as(root, 'PUT', '/settings/ai', { ...usage, data_classes: ['cases', 'alerts'] })).status).toBe(200);
      const entries = (await settingsEntries()).slice(before);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        actor: { email: root.email, subject: root.sub, kind: 'user' },
        target: null,
        detail: { half: 'usage', changed: ['data_classes', 'max_tokens', 'temperature', 'timeout_seconds'] },
      });
      // The halves are apart: the usage write left the provider half as it was, and the other way round.
      expect(await peerOk('GET')).toEqual(provider);
      await peerOk('PUT', { enabled: true, provider: 'compatible_api', base_url: 'https://ai.example.test/v1', model: 'gpt-usage-check' });
      expect((await as(root, 'GET', '/settings/ai')).body).toEqual(res.body);
      expect((await callPath().read()).usage).toEqual(res.body);
    });

    it('refuses 422 in the validation shape to a bad value, a missing field and provider or enabled, and changes nothing', async () => {
      const before = await stored();
      const entries = (await settingsEntries()).length;
      const good = { data_classes: ['alerts'], max_tokens: 100, temperature: 1, timeout_seconds: 10 };
      const bad: [unknown, (string | number)[]][] = [
        [{ ...good, max_tokens: 0 }, ['body', 'max_tokens']],
        [{ ...good, max_tokens: 32_769 }, ['body', 'max_tokens']],
        [{ ...good, max_tokens: 1.5 }, ['body', 'max_tokens']],
        [{ ...good, temperature: 2.5 }, ['body', 'temperature']],
        [{ ...good, temperature: -0.1 }, ['body', 'temperature']],
        [{ ...good, timeout_seconds: 0 }, ['body', 'timeout_seconds']],
        [{ ...good, timeout_seconds: 301 }, ['body', 'timeout_seconds']],
        [{ ...good, data_classes: ['secrets'] }, ['body', 'data_classes', 0]],
        [{ ...good, data_classes: 'alerts' }, ['body', 'data_classes']],
        [{ max_tokens: 100, temperature: 1, timeout_seconds: 10 }, ['body', 'data_classes']],
        [{ ...good, provider: 'vendor_a' }, ['body', 'provider']],
        [{ ...good, enabled: false }, ['body', 'enabled']],
      ];
      for (const [body, loc] of bad) {
        const res = await as(root, 'PUT', '/settings/ai', body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(422);
        expect(Object.keys(res.body)).toEqual(['detail']);
        expect(res.body.detail).toContainEqual(expect.objectContaining({ loc }));
      }
      const malformed = await request(svc, 'PUT', '/settings/ai', await assertionAs(svc, root, 'PUT', '/settings/ai'), undefined, '{"max_tokens": 5');
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail).toContainEqual(expect.objectContaining({ loc: ['body'], type: 'json_invalid' }));
      expect(await stored()).toEqual(before);
      expect(await settingsEntries()).toHaveLength(entries);
    });
  });

  describe('the status', () => {
    it('shows every role the effective state, provider and model, and nothing else', async () => {
      await peerOk('PUT', fullConfig);
      for (const who of [ana, vic, root]) {
        const res = await as(who, 'GET', '/settings/ai/status');
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual({ enabled: true, provider: 'compatible_api', model: 'gpt-test' });
        expect(res.text).not.toContain('example.test');
      }
      const exchange = await svc.identity.sign({ token_use: 'exchange', sub: 'workload', scope: 'svc:cases:read', act: ana });
      expect((await request(svc, 'GET', '/settings/ai/status', exchange)).body).toMatchObject({ enabled: true });
      // A person holding no role, and identity's token, are refused.
      expect((await as(nobody, 'GET', '/settings/ai/status')).status).toBe(403);
      expect((await request(svc, 'GET', '/settings/ai/status', await serviceToken(svc, READ))).status).toBe(403);
    });

    it('shows AI off, with no provider or model, once identity disables it', async () => {
      expect(await peerOk('PUT', { enabled: false })).toMatchObject({ enabled: false, provider: 'compatible_api', key_configured: true });
      expect((await as(ana, 'GET', '/settings/ai/status')).body).toEqual({ enabled: false, provider: null, model: null });
      expect((await callPath().read()).api_key).toBe(KEY);
    });
  });

  it('never shows or stores a key in clear: no answer, no audit entry, no row', async () => {
    const audit = await as(root, 'GET', '/audit?limit=500');
    expect(audit.status).toBe(200);
    const rows = JSON.stringify(await stored());
    for (const key of [KEY, KEY_2]) {
      for (const text of answers) expect(text).not.toContain(key);
      expect(rows).not.toContain(key);
    }
  });
});

describe.each(e2eEngines)('the AI kill switch on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: { SVC_AI_KILL_SWITCH: 'true' } });
  }, 120_000);
  afterAll(async () => svc?.close());

  it('answers the status off whatever identity configured, and leaves the settings as identity wrote them', async () => {
    const config = { enabled: true, provider: 'vendor_a', base_url: 'https://vendor.example.test', model: 'model-a', api_key: KEY };
    const put = await request(svc, 'PUT', PATH, await serviceToken(svc, WRITE), config);
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ enabled: true, provider: 'vendor_a', key_configured: true });
    const analyst = testPerson('ai-kill-ana@example.com', [{ team: null, role: 'analyst' }]);
    const status = await callAs(svc, analyst, 'GET', '/settings/ai/status');
    expect(status.status, status.text).toBe(200);
    expect(status.body).toEqual({ enabled: false, provider: null, model: null });
    expect((await request(svc, 'GET', PATH, await serviceToken(svc, READ))).body).toMatchObject({ enabled: true });
  });
});

describe('AI settings configuration and rules', () => {
  it('reads the SVC_AI_* settings with their defaults', () => {
    expect(loadConfig({}).ai).toEqual({
      killSwitch: false,
      usageDefaults: { data_classes: [], max_tokens: 1024, temperature: 0.2, timeout_seconds: 30 },
      maxPromptChars: 60_000,
    });
    const set = loadConfig({ ...usageEnv, SVC_AI_KILL_SWITCH: 'true', SVC_AI_MAX_PROMPT_CHARS: '1000', SVC_AI_DEFAULT_DATA_CLASSES: 'cases, Alerts,cases' }).ai;
    expect(set).toEqual({ killSwitch: true, usageDefaults: { ...usageDefaults, data_classes: ['alerts', 'cases'] }, maxPromptChars: 1000 });
    expect(loadConfig({ SVC_AI_DEFAULT_DATA_CLASSES: 'none' }).ai.usageDefaults.data_classes).toEqual([]);
  });

  it.each([
    ['SVC_AI_KILL_SWITCH', 'yes'],
    ['SVC_AI_DEFAULT_DATA_CLASSES', 'alerts,secrets'],
    ['SVC_AI_DEFAULT_MAX_TOKENS', '0'],
    ['SVC_AI_DEFAULT_MAX_TOKENS', '32769'],
    ['SVC_AI_DEFAULT_MAX_TOKENS', '10.5'],
    ['SVC_AI_DEFAULT_TEMPERATURE', '2.1'],
    ['SVC_AI_DEFAULT_TEMPERATURE', 'warm'],
    ['SVC_AI_DEFAULT_TIMEOUT_SECONDS', '301'],
    ['SVC_AI_MAX_PROMPT_CHARS', '0'],
  ])('refuses to start with %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('normalizes a base_url and refuses what is not an absolute http(s) URL without credentials, query or fragment', () => {
    expect(normalizeAiBaseUrl('https://AI.example.test/v1//')).toBe('https://ai.example.test/v1');
    expect(normalizeAiBaseUrl('http://127.0.0.1:11434/')).toBe('http://127.0.0.1:11434');
    for (const bad of ['ftp://x.test', 'https://u@x.test', 'https://x.test/?', 'https://x.test/#', 'x.test', 'https:// x.test', 'file:///etc/passwd']) {
      expect(normalizeAiBaseUrl(bad), bad).toBeNull();
    }
  });

  it('counts AI effectively on only with the switch off, enabled, and a complete provider', () => {
    const on = { enabled: true, provider: 'compatible_api' as const, base_url: 'https://x.test', model: 'm', key_configured: false };
    expect(aiStatusOf(on, false)).toEqual({ enabled: true, provider: 'compatible_api', model: 'm' });
    const off = { enabled: false, provider: null, model: null };
    expect(aiStatusOf(on, true)).toEqual(off);
    expect(aiStatusOf({ ...on, enabled: false }, false)).toEqual(off);
    expect(aiStatusOf({ ...on, model: null }, false)).toEqual(off);
    expect(aiStatusOf({ ...on, provider: 'vendor_a' }, false)).toEqual(off);
    expect(aiStatusOf({ ...on, provider: 'vendor_a', key_configured: true }, false)).toEqual({ enabled: true, provider: 'vendor_a', model: 'm' });
  });
});
