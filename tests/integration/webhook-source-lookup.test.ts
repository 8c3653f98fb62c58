/**
 * Intake's webhook source lookup (adapters/webhook-sources/store.ts, SPEC.md "Webhook
 * source"): the lookups of one event-loop turn are one statement, each answered as if
 * asked alone, and nothing outlives the turn (a disable or a rotation holds for the next
 * request), on every engine.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../adapters/connections/secret-box.ts';
import { createWebhookSourceStore, type NewWebhookSource } from '../../adapters/webhook-sources/store.ts';
import { engines } from '../support/engines.ts';
import { recording } from '../support/recording.ts';

const source = (slug: string): NewWebhookSource => ({
  slug,
  type: 'generic',
  name: slug,
  team: null,
  fieldMap: {},
  defaultSeverity: 'medium',
  signingSecret: null,
});

describe.each(engines)('webhook source lookup on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  const box = createSecretBox(randomBytes(32));
  const now = () => new Date();
  beforeAll(async () => {
    opened = await engine.open();
  });
  afterAll(async () => opened.close());

  it('answers the lookups of one turn with one statement, each as if asked alone', async () => {
    const store = createWebhookSourceStore(opened.db, box, randomUUID, now);
    const siem = await store.create(source('turn-siem'));
    const edr = await store.create(source('turn-edr'));
    const off = await store.create(source('turn-off'));
    await store.update(off.id, { enabled: false });

    const statements: string[] = [];
    const looking = createWebhookSourceStore(recording(opened.db, statements), box, randomUUID, now);
    const found = await Promise.all(['turn-siem', 'turn-edr', 'turn-siem', 'turn-off', 'turn-none', 'NOT A SLUG'].map((s) => looking.bySlug(s)));
    expect(statements).toHaveLength(1);
    expect(found.map((f) => f?.id ?? null)).toEqual([siem.id, edr.id, siem.id, null, null, null]);
    expect(found[0]?.tokenMatches(siem.token)).toBe(true);
    expect(found[0]?.tokenMatches(edr.token)).toBe(false);
    expect(found[1]?.tokenMatches(edr.token)).toBe(true);
  });

  it('sees a disable and a rotation at the next lookup', async () => {
    const store = createWebhookSourceStore(opened.db, box, randomUUID, now);
    const created = await store.create(source('turn-rotated'));
    expect((await store.bySlug('turn-rotated'))?.tokenMatches(created.token)).toBe(true);
    const rotated = await store.rotate(created.id);
    const after = await store.bySlug('turn-rotated');
    expect(after?.tokenMatches(created.token)).toBe(false);
    expect(after?.tokenMatches(rotated.token)).toBe(true);
    await store.update(created.id, { enabled: false });
    expect(await store.bySlug('turn-rotated')).toBeNull();
  });

  it('fails only the lookups of a source that cannot be unsealed', async () => {
    const store = createWebhookSourceStore(opened.db, box, randomUUID, now);
    const sealedElsewhere = createWebhookSourceStore(opened.db, createSecretBox(randomBytes(32)), randomUUID, now);
    const good = await store.create(source('turn-good'));
    await sealedElsewhere.create(source('turn-foreign'));
    const [foreign, ok] = await Promise.allSettled([store.bySlug('turn-foreign'), store.bySlug('turn-good')]);
    expect(foreign.status).toBe('rejected');
    expect(ok.status === 'fulfilled' && ok.value?.id).toBe(good.id);
  });
});
