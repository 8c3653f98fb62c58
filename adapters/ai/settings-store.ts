/**
 * The install's AI settings at rest (SPEC.md "AI settings"; domain/ai/settings.ts): one
 * `ai_settings` row (migration 0035), no row meaning AI off, no provider and the
 * configured usage defaults. The provider key is sealed with the service's secret box,
 * as connection secrets are, and write-only: views say `key_configured`, and only
 * `read()`, for the AI call path, opens it.
 *
 * Every write is one upsert of its half's columns, so a failure leaves the row as it was,
 * and a provider write only lands if the provider, base_url and sealed key it decided on
 * are still the stored ones (another write in between makes it decide again), so a key
 * can never end up stored next to an endpoint it was not given for.
 */
import type { Kysely, Selectable } from 'kysely';
import * as v from 'valibot';
import {
  aiProviders,
  canonicalDataClasses,
  type AiDataClass,
  type AiProviderBody,
  type AiProviderSettings,
  type AiSettings,
  type AiUsage,
} from '../../domain/ai/settings.ts';
import { conflict, unprocessable } from '../../domain/shared/errors.ts';
import type { AiSettingsTable, Database } from '../../projections/database.ts';
import type { SecretBox } from '../connections/secret-box.ts';

const ID = 'install';
/** Binds the sealed key to this row, so a sealed value copied from elsewhere does not open. */
const KEY_AAD = 'ai_settings/install/api_key';
/** Provider writes that lost a race to another write are decided again this many times before 409. */
const WRITE_ATTEMPTS = 5;

type Row = Selectable<AiSettingsTable>;

/** A provider or usage write: the half as it now is, and the keys that really changed (none: nothing was written). */
export type AiSettingsWrite<T> = { view: T; changed: string[] };

export type AiSettingsStore = ReturnType<typeof createAiSettingsStore>;

/**
 * The AI settings store over `db`; `box` seals the key (the connections' box), `now` is
 * the clock and `defaults` the usage half an install has before an admin changes it
 * (SVC_AI_DEFAULT_*).
 *
 * @example
 * const store = createAiSettingsStore({ db, box, now, defaults: config.ai.usageDefaults });
 * const { view, changed } = await store.putProvider({ enabled: true });
 */
export function createAiSettingsStore(deps: { db: Kysely<Database>; box: SecretBox; now: () => Date; defaults: AiUsage }) {
  const { db, box } = deps;
  const load = () => db.selectFrom('ai_settings').selectAll().where('id', '=', ID).executeTakeFirst();

  const usageOf = (row: Row | undefined): AiUsage => ({
    data_classes: row?.data_classes == null ? [...deps.defaults.data_classes] : canonicalDataClasses(row.data_classes as AiDataClass[]),
    max_tokens: row?.max_tokens ?? deps.defaults.max_tokens,
    temperature: row?.temperature ?? deps.defaults.temperature,
    timeout_seconds: row?.timeout_seconds ?? deps.defaults.timeout_seconds,
  });

  /** Whether `key` is the key `sealed` holds; a value that does not open counts as another key. */
  const sameKey = (sealed: string | null, key: string) => {
    if (sealed === null) return false;
    try {
      return box.open(sealed, KEY_AAD) === key;
    } catch {
      return false;
    }
  };

  /** The provider columns `body` leads to from `row`, and what changed; throws ai_invalid_config for the key rule. */
  const decideProvider = (row: Row | undefined, body: AiProviderBody) => {
    const current = providerColumns(row);
    if (!('provider' in body)) {
      const next = { ...current, enabled: body.enabled };
      return { next, changed: next.enabled === current.enabled ? [] : ['enabled'] };
    }
    const moved = (['provider', 'base_url'] as const).filter((k) => body[k] !== current[k]);
    let sealed = current.api_key_sealed;
    let keyChanged = false;
    if (body.api_key === undefined) {
      if (moved.length > 0 && current.api_key_sealed !== null) {
        throw unprocessable(
          'ai_invalid_config',
          `changing ${moved.join(' and ')} needs a new api_key: the stored key is kept only for the same provider and base_url`,
          { field: moved[0], changed: moved },
        );
      }
    } else if (body.api_key === null) {
      keyChanged = current.api_key_sealed !== null;
      sealed = null;
    } else if (!sameKey(current.api_key_sealed, body.api_key)) {
      keyChanged = true;
      sealed = box.seal(body.api_key, KEY_AAD);
    }
    const next = { enabled: body.enabled, provider: body.provider, base_url: body.base_url, model: body.model, api_key_sealed: sealed };
    const changed = (['enabled', 'provider', 'base_url', 'model'] as const).filter((k) => next[k] !== current[k]);
    return { next, changed: keyChanged ? [...changed, 'api_key'] : changed };
  };

  return {
    /** Everything an AI call needs, the key opened. For the AI call path only: never answer, log or store it. Throws an Error (no data) when the sealed key does not open. */
    async read(): Promise<AiSettings> {
      const row = await load();
      let apiKey: string | null = null;
      if (row?.api_key_sealed != null) {
        try {
          apiKey = box.open(row.api_key_sealed, KEY_AAD);
        } catch (error) {
          throw new Error('the AI provider key cannot be decrypted', { cause: error });
        }
      }
      return { ...providerView(row), api_key: apiKey, usage: usageOf(row) };
    },

    /** The provider half as `GET /peer/v1/settings/ai` answers it: the key named by `key_configured` only. */
    async providerView(): Promise<AiProviderSettings> {
      return providerView(await load());
    },

    /**
     * Applies a provider write (`{enabled}` alone, or a full configuration). A body that
     * changes nothing writes nothing (`changed` empty).
     * @throws DomainError 422 `ai_invalid_config` (params `{field, changed}`) when `api_key`
     *   is omitted while a key is stored and `provider` or `base_url` changes; 409
     *   `ai_settings_conflict` when other writes kept winning the race.
     */
    async putProvider(body: AiProviderBody): Promise<AiSettingsWrite<AiProviderSettings>> {
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
        const row = await load();
        const { next, changed } = decideProvider(row, body);
        if (changed.length === 0) return { view: providerView(row), changed };
        // The stored values as they are, for the compare-and-set below.
        const seen = { provider: row?.provider ?? null, base_url: row?.base_url ?? null, api_key_sealed: row?.api_key_sealed ?? null };
        const written = await db
          .insertInto('ai_settings')
          .values({ id: ID, ...next, updated_at: deps.now() })
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet({ ...next, updated_at: deps.now() })
              .where('ai_settings.provider', 'is not distinct from', seen.provider)
              .where('ai_settings.base_url', 'is not distinct from', seen.base_url)
              .where('ai_settings.api_key_sealed', 'is not distinct from', seen.api_key_sealed),
          )
          .returningAll()
          .executeTakeFirst();
        if (written) return { view: providerView(written), changed };
      }
      throw conflict('ai_settings_conflict', 'the AI settings kept changing while this write was decided; send it again');
    },

    /** The usage half as `GET /settings/ai` answers it (the configured defaults until an admin changes it). */
    async usage(): Promise<AiUsage> {
      return usageOf(await load());
    },

    /**
     * Replaces the usage half; `data_classes` is kept without repeats, in a fixed order.
     * A body equal to the current usage writes nothing (`changed` empty).
     */
    async putUsage(body: AiUsage): Promise<AiSettingsWrite<AiUsage>> {
      const next: AiUsage = { ...body, data_classes: canonicalDataClasses(body.data_classes) };
      const current = usageOf(await load());
      const changed = (['data_classes', 'max_tokens', 'temperature', 'timeout_seconds'] as const).filter((k) =>
        k === 'data_classes' ? next.data_classes.join() !== current.data_classes.join() : next[k] !== current[k],
      );
      if (changed.length === 0) return { view: current, changed };
      const columns = { ...next, data_classes: JSON.stringify(next.data_classes), updated_at: deps.now() };
      const written = await db
        .insertInto('ai_settings')
        .values({ id: ID, ...columns })
        .onConflict((oc) => oc.column('id').doUpdateSet(columns))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { view: usageOf(written), changed };
    },
  };
}

/** The provider columns of `row`, or those of an install that never configured AI. */
function providerColumns(row: Row | undefined) {
  const stored = row?.provider;
  return {
    enabled: row?.enabled ?? false,
    provider: v.is(v.picklist(aiProviders), stored) ? stored : null,
    base_url: row?.base_url ?? null,
    model: row?.model ?? null,
    api_key_sealed: row?.api_key_sealed ?? null,
  };
}

function providerView(row: Row | undefined): AiProviderSettings {
  const { api_key_sealed, ...view } = providerColumns(row);
  return { ...view, key_configured: api_key_sealed !== null };
}
