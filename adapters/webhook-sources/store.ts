/**
 * Webhook sources with sealed tokens (SPEC.md "Webhook source", "Authentication"):
 * the token is generated here, sealed with SVC_SECRET_KEY bound to the source id, and
 * returned only by create and rotate; a `pager_a` signing secret is write-only. Rotation
 * replaces the token at once: the old one stops working (a leaked token must die now).
 * Token checks compare sha256 digests in constant time.
 *
 * Intake's lookups by slug that arrive in one event-loop turn are one statement, and each
 * source found is unsealed once for all of them. Nothing is cached past the turn, so a
 * rotation or a disable holds for the next request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import DataLoader from 'dataloader';
import type { Kysely, Selectable } from 'kysely';
import * as v from 'valibot';
import { fieldMapKeys, type FieldMap } from '../../domain/webhook-sources/generic.ts';
import { conflict, notFound } from '../../domain/shared/errors.ts';
import type { Database, WebhookSourcesTable } from '../../projections/database.ts';
import type { SecretBox } from '../connections/secret-box.ts';

/** The source types of SPEC.md "Webhook source", the only ones a source is created with. */
export const webhookSourceTypes = ['generic', 'detector', 'ticket_a', 'ticket_b', 'mailbox', 'pager_a', 'pager_b'] as const;
export type WebhookSourceType = (typeof webhookSourceTypes)[number];

/** Whether a stored `type` is one of `webhookSourceTypes`. */
export const isWebhookSourceType = (type: string): type is WebhookSourceType => (webhookSourceTypes as readonly string[]).includes(type);

/** The shape of a source slug: 2-63 characters of a-z, 0-9 and `-`, starting with a letter or digit. */
export const WEBHOOK_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The paths of a generic source's `field_map`, each optional. */
const fieldMapSchema = v.strictObject(
  Object.fromEntries(fieldMapKeys.map((k) => [k, v.optional(v.string())])) as Record<
    (typeof fieldMapKeys)[number],
    v.OptionalSchema<v.StringSchema<undefined>, undefined>
  >,
);

/** A source as the API shows it: never its token or signing secret. */
const webhookSourceObject = v.strictObject({
  id: v.string(),
  slug: v.string(),
  type: v.string(),
  name: v.string(),
  team: v.nullable(v.string()),
  field_map: fieldMapSchema,
  default_severity: v.string(),
  enabled: v.boolean(),
  signing_secret_configured: v.boolean(),
  /** The intake path under the service's base path. */
  endpoint: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
});
/** `webhookSourceObject` as the document's component schema `WebhookSource`. */
export const webhookSourceSchema = v.pipe(webhookSourceObject, v.metadata({ ref: 'WebhookSource' }));

export type WebhookSourceView = v.InferOutput<typeof webhookSourceSchema>;

/** A source with its token, which only create and rotate answer, once. */
export const webhookSourceWithTokenSchema = v.pipe(
  v.strictObject({ ...webhookSourceObject.entries, token: v.string() }),
  v.metadata({ ref: 'WebhookSourceWithToken' }),
);

export type NewWebhookSource = {
  slug: string;
  type: WebhookSourceType;
  name: string;
  team: string | null;
  fieldMap: FieldMap;
  defaultSeverity: string;
  signingSecret: string | null;
};

export type WebhookSourcePatch = {
  name?: string;
  team?: string | null;
  fieldMap?: FieldMap;
  defaultSeverity?: string;
  enabled?: boolean;
  signingSecret?: string;
};

/** An enabled source found by slug, with what authenticating its requests needs. */
export type ResolvedWebhookSource = WebhookSourceView & { tokenMatches: (token: string) => boolean; signingSecret: string | null };

type Row = Selectable<WebhookSourcesTable>;

const digest = (s: string) => createHash('sha256').update(s).digest();
const newToken = () => `whs_${randomBytes(32).toString('base64url')}`;

export function createWebhookSourceStore(db: Kysely<Database>, box: SecretBox, ids: () => string, now: () => Date) {
  const view = (r: Row): WebhookSourceView => ({
    id: r.id,
    slug: r.slug,
    type: r.type,
    name: r.name,
    team: r.team,
    field_map: r.field_map,
    default_severity: r.default_severity,
    enabled: r.enabled,
    signing_secret_configured: r.signing_secret_ciphertext !== null,
    endpoint: `/webhooks/${r.slug}`,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  });
  const sealToken = (id: string, token: string) => box.seal(token, `webhook_source:${id}:token`);
  const find = async (id: string): Promise<Row> => {
    const row = await db.selectFrom('webhook_sources').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('webhook_source_not_found', 'webhook source not found', { source_id: id });
    return row;
  };
  const resolve = (r: Row): ResolvedWebhookSource => {
    const token = digest(box.open(r.token_ciphertext, `webhook_source:${r.id}:token`));
    return {
      ...view(r),
      tokenMatches: (candidate) => timingSafeEqual(digest(candidate), token),
      signingSecret: r.signing_secret_ciphertext === null ? null : box.open(r.signing_secret_ciphertext, `webhook_source:${r.id}:signing_secret`),
    };
  };

  const unsealed = (r: Row): ResolvedWebhookSource | Error => {
    try {
      return resolve(r);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };
  // Dispatched on setImmediate rather than DataLoader's default (the end of the current
  // job): each request arrives in its own I/O callback, so only the check phase after the
  // poll phase sees every request of the turn.
  const enabledBySlug = new DataLoader<string, ResolvedWebhookSource | null>(
    async (slugs) => {
      const rows = await db
        .selectFrom('webhook_sources')
        .selectAll()
        .where('slug', 'in', [...slugs])
        .where('enabled', '=', true)
        .execute();
      // A source that cannot be unsealed fails its own requests only.
      const found = new Map(rows.map((r) => [r.slug, unsealed(r)]));
      return slugs.map((slug) => found.get(slug) ?? null);
    },
    { cache: false, maxBatchSize: 100, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );

  return {
    list: async (): Promise<WebhookSourceView[]> => (await db.selectFrom('webhook_sources').selectAll().orderBy('slug').execute()).map(view),
    get: async (id: string): Promise<WebhookSourceView> => view(await find(id)),
    /** Errors: 409 `webhook_source_slug_taken`. Answers the view and the token, shown this once. */
    create: async (input: NewWebhookSource): Promise<v.InferOutput<typeof webhookSourceWithTokenSchema>> => {
      const id = ids();
      const token = newToken();
      const at = now();
      const taken = await db.selectFrom('webhook_sources').select('id').where('slug', '=', input.slug).executeTakeFirst();
      if (taken) throw conflict('webhook_source_slug_taken', `a webhook source already uses the slug '${input.slug}'`, { slug: input.slug });
      const row = await db
        .insertInto('webhook_sources')
        .values({
          id,
          slug: input.slug,
          type: input.type,
          name: input.name,
          team: input.team,
          field_map: JSON.stringify(input.fieldMap),
          default_severity: input.defaultSeverity,
          enabled: true,
          token_ciphertext: sealToken(id, token),
          signing_secret_ciphertext: input.signingSecret === null ? null : box.seal(input.signingSecret, `webhook_source:${id}:signing_secret`),
          created_at: at,
          updated_at: at,
        })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!row) throw conflict('webhook_source_slug_taken', `a webhook source already uses the slug '${input.slug}'`, { slug: input.slug });
      return { ...view(row), token };
    },
    /** Errors: 404 `webhook_source_not_found`. */
    update: async (id: string, patch: WebhookSourcePatch): Promise<WebhookSourceView> => {
      await find(id);
      const row = await db
        .updateTable('webhook_sources')
        .set({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.team !== undefined && { team: patch.team }),
          ...(patch.fieldMap !== undefined && { field_map: JSON.stringify(patch.fieldMap) }),
          ...(patch.defaultSeverity !== undefined && { default_severity: patch.defaultSeverity }),
          ...(patch.enabled !== undefined && { enabled: patch.enabled }),
          ...(patch.signingSecret !== undefined && { signing_secret_ciphertext: box.seal(patch.signingSecret, `webhook_source:${id}:signing_secret`) }),
          updated_at: now(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return view(row);
    },
    /** Errors: 404 `webhook_source_not_found`. */
    remove: async (id: string): Promise<void> => {
      const r = await db.deleteFrom('webhook_sources').where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) throw notFound('webhook_source_not_found', 'webhook source not found', { source_id: id });
    },
    /** A new token replaces the old one at once. Errors: 404 `webhook_source_not_found`. */
    rotate: async (id: string): Promise<v.InferOutput<typeof webhookSourceWithTokenSchema>> => {
      await find(id);
      const token = newToken();
      const row = await db
        .updateTable('webhook_sources')
        .set({ token_ciphertext: sealToken(id, token), updated_at: now() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...view(row), token };
    },
    /** The enabled source of `slug`, or null. */
    bySlug: async (slug: string): Promise<ResolvedWebhookSource | null> => {
      // A string that cannot be a slug (a NUL, say, which the database refuses) names no source.
      if (!WEBHOOK_SLUG.test(slug)) return null;
      return enabledBySlug.load(slug);
    },
    /**
     * The enabled `detector` source whose token `token` is (accepted on /webhooks/detector),
     * with its team: the only team its alerts may name (issue 46); null when none.
     */
    detectorByToken: async (token: string): Promise<{ team: string | null } | null> => {
      const rows = await db.selectFrom('webhook_sources').selectAll().where('type', '=', 'detector').where('enabled', '=', true).execute();
      const source = rows.map(resolve).find((s) => s.tokenMatches(token));
      return source === undefined ? null : { team: source.team };
    },
  };
}

export type WebhookSourceStore = ReturnType<typeof createWebhookSourceStore>;
