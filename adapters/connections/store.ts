/**
 * Connections with their secret sealed at rest (SPEC.md "Connection"). The secret is
 * write-only: views carry `secret_configured` only; `resolveByName` decrypts it for the
 * worker. No error message carries a secret. A `chat_a` connection's secret is the chat
 * product's signing secret (SPEC.md "Webhook intake"), so the bot token it posts with is a
 * second write-only value, `bot_token`, sealed the same way (`bot_token_configured`).
 */
import type { Kysely, Selectable } from 'kysely';
import * as v from 'valibot';
import { conflict, notFound, unprocessable } from '../../domain/shared/errors.ts';
import type { ConnectionsTable, Database } from '../../projections/database.ts';
import type { ResolvedConnection } from '../actions/action.ts';
import { checkConnectionConfig } from './config-rules.ts';
import { configAfterMove } from './destination.ts';
import type { SecretBox } from './secret-box.ts';

/** A connection as the API shows it, secrets never included; timestamps are RFC 3339 strings. */
export const connectionSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    kind: v.string(),
    name: v.string(),
    base_url: v.nullable(v.string()),
    config: v.record(v.string(), v.unknown()),
    secret_configured: v.boolean(),
    /** chat_a connections only: whether a bot token is stored. */
    bot_token_configured: v.optional(v.boolean()),
    /** End of the overlap in which the secret before the last rotation still works; null outside one. */
    rotation_overlap_until: v.nullable(v.string()),
    created_at: v.string(),
    updated_at: v.string(),
  }),
  v.metadata({ ref: 'Connection' }),
);

export type ConnectionView = v.InferOutput<typeof connectionSchema>;

/** PUT /connections/<id>: fields absent stay; `secret: null` clears it; a new secret replaces it at once (rotate overlaps). */
export type ConnectionChanges = {
  name?: string;
  base_url?: string | null;
  config?: Record<string, unknown>;
  secret?: string | null;
  bot_token?: string | null;
};

export type NewConnection = {
  kind: string;
  name: string;
  base_url?: string | null;
  config?: Record<string, unknown>;
  secret?: string | null;
  bot_token?: string | null;
};

export type ConnectionStore = ReturnType<typeof createConnectionStore>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The connection store over `db`. `ids` gives new connection ids (UUIDs), `now` the clock.
 * Errors (DomainError): create answers 409 'connection_name_taken' for a used name and 422
 * 'detector_connection_secret_refused' for a `detector` connection sent with a secret and
 * 422 'bot_token_refused' for a `bot_token` on a connection of another kind than chat_a;
 * create and update answer ValidationFailed (422 at `body.config.<key>`) for a config the
 * kind's known keys refuse (config-rules.ts), which also fills in their defaults;
 * get answers 404 'connection_not_found'. A sealed secret is bound to its connection id.
 */
export function createConnectionStore(db: Kysely<Database>, box: SecretBox, ids: () => string, now: () => Date, rotationOverlapMs: number) {
  const find = async (id: string) => {
    const row = UUID.test(id) ? await db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
    if (!row) throw notFound('connection_not_found', 'connection not found', { id });
    return row;
  };
  const refuseDetectorSecret = (kind: string, secret: string | null | undefined) => {
    if (kind === 'detector' && secret) {
      throw unprocessable('detector_connection_secret_refused', 'a detector connection takes no secret: the service calls the detector with exchanged tokens');
    }
  };
  const refuseBotToken = (kind: string, token: string | null | undefined) => {
    if (kind !== 'chat_a' && token) throw unprocessable('bot_token_refused', 'only a chat_a connection takes a bot_token', { kind });
  };
  const nameTaken = (error: unknown, name: string | undefined) => {
    if ((error as { code?: unknown }).code === '23505') return conflict('connection_name_taken', `a connection named '${name}' already exists`, { name });
    return error;
  };
  const view = (row: Selectable<ConnectionsTable>) => toView(row, now());
  return {
    /** Creates a connection; the secret, if any, is sealed before it reaches the database. */
    async create(input: NewConnection): Promise<ConnectionView> {
      const secret = input.secret ?? null;
      refuseDetectorSecret(input.kind, secret);
      refuseBotToken(input.kind, input.bot_token);
      const config = checkConnectionConfig(input.kind, input.config ?? {});
      const id = ids();
      const at = now();
      try {
        const row = await db
          .insertInto('connections')
          .values({
            id,
            kind: input.kind,
            name: input.name,
            base_url: input.base_url ?? null,
            config: JSON.stringify(config),
            secret_ciphertext: secret === null ? null : box.seal(secret, secretAad(id)),
            bot_token_ciphertext: input.bot_token ? box.seal(input.bot_token, botTokenAad(id)) : null,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return view(row);
      } catch (error) {
        throw nameTaken(error, input.name);
      }
    },

    /**
     * Changes a connection (its kind stays). A ticket connection whose destination moves
     * (destination.ts) gets `mirror_private_cases` false unless `changes.config` names it.
     * Errors: 404 `connection_not_found`, 409 `connection_name_taken`, 422 `detector_connection_secret_refused`.
     */
    async update(id: string, changes: ConnectionChanges): Promise<ConnectionView> {
      const current = await find(id);
      refuseDetectorSecret(current.kind, changes.secret);
      refuseBotToken(current.kind, changes.bot_token);
      const checked = changes.config === undefined ? current.config : checkConnectionConfig(current.kind, changes.config);
      const after = { base_url: changes.base_url === undefined ? current.base_url : changes.base_url, config: checked };
      const moved = configAfterMove(current.kind, current, after, changes.config);
      const config = moved === current.config ? undefined : moved;
      const secret =
        changes.secret === undefined
          ? {}
          : {
              secret_ciphertext: changes.secret === null ? null : box.seal(changes.secret, secretAad(id)),
              previous_secret_ciphertext: null,
              rotation_overlap_until: null,
            };
      try {
        const row = await db
          .updateTable('connections')
          .set({
            ...(changes.name !== undefined && { name: changes.name }),
            ...(changes.base_url !== undefined && { base_url: changes.base_url }),
            ...(config !== undefined && { config: JSON.stringify(config) }),
            ...secret,
            ...(changes.bot_token !== undefined && { bot_token_ciphertext: changes.bot_token === null ? null : box.seal(changes.bot_token, botTokenAad(id)) }),
            updated_at: now(),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return view(row);
      } catch (error) {
        throw nameTaken(error, changes.name);
      }
    },

    /** Errors: 404 `connection_not_found`. */
    async remove(id: string): Promise<void> {
      await find(id);
      await db.deleteFrom('connections').where('id', '=', id).execute();
    },

    /**
     * Replaces the secret; the one before stays usable until the overlap deadline (also on
     * the answer). Errors: 404, 422 `detector_connection_secret_refused`.
     */
    async rotate(id: string, secret: string): Promise<ConnectionView> {
      const current = await find(id);
      refuseDetectorSecret(current.kind, secret);
      const at = now();
      const row = await db
        .updateTable('connections')
        .set({
          secret_ciphertext: box.seal(secret, secretAad(id)),
          previous_secret_ciphertext: current.secret_ciphertext === null ? null : box.seal(box.open(current.secret_ciphertext, secretAad(id)), previousAad(id)),
          rotation_overlap_until: current.secret_ciphertext === null ? null : new Date(at.getTime() + rotationOverlapMs),
          updated_at: at,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return view(row);
    },

    /** Every connection, by name. */
    async list(): Promise<ConnectionView[]> {
      const rows = await db.selectFrom('connections').selectAll().orderBy('name').execute();
      return rows.map(view);
    },

    /** One connection by id; 404 'connection_not_found' (also for an id that is not a UUID). */
    async get(id: string): Promise<ConnectionView> {
      return view(await find(id));
    },

    /**
     * The named connection with its secret decrypted, for the worker only; null when absent.
     * Throws an Error naming the connection when its sealed secret does not open.
     */
    async resolveByName(name: string): Promise<ResolvedConnection | null> {
      const row = await db.selectFrom('connections').selectAll().where('name', '=', name).executeTakeFirst();
      return row ? resolved(row) : null;
    },

    /** The named connection's `config` (no secret is opened), or null when there is none. */
    async configByName(name: string): Promise<Record<string, unknown> | null> {
      const row = await db.selectFrom('connections').select('config').where('name', '=', name).executeTakeFirst();
      return row?.config ?? null;
    },

    /** Every connection of `kind` with its secrets decrypted, by name (the chat_a signature check tries each). */
    async resolveAllOfKind(kind: string): Promise<ResolvedConnection[]> {
      const rows = await db.selectFrom('connections').selectAll().where('kind', '=', kind).orderBy('name').execute();
      return rows.map(resolved);
    },

    /** The connection with its secret decrypted, for the connection probe; 404 'connection_not_found'. */
    async resolveById(id: string): Promise<ResolvedConnection> {
      return resolved(await find(id));
    },
  };

  function resolved(row: Selectable<ConnectionsTable>): ResolvedConnection {
    const open = (sealed: string | null, aad: string) => {
      if (sealed === null) return null;
      try {
        return box.open(sealed, aad);
      } catch (error) {
        throw new Error(`the secret of connection '${row.name}' cannot be decrypted`, { cause: error });
      }
    };
    const overlapping = row.rotation_overlap_until !== null && new Date(row.rotation_overlap_until) > now();
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      base_url: row.base_url,
      config: row.config,
      secret: open(row.secret_ciphertext, secretAad(row.id)),
      previous_secret: overlapping ? open(row.previous_secret_ciphertext, previousAad(row.id)) : null,
      bot_token: open(row.bot_token_ciphertext, botTokenAad(row.id)),
    };
  }
}

// Namespaced so a sealed connection secret cannot be swapped with another kind of sealed value.
function secretAad(id: string): string {
  return `connections/${id}`;
}

function previousAad(id: string): string {
  return `connections/${id}/previous`;
}

function botTokenAad(id: string): string {
  return `connections/${id}/bot_token`;
}

function toView(row: Selectable<ConnectionsTable>, now: Date): ConnectionView {
  const overlap = row.rotation_overlap_until === null ? null : new Date(row.rotation_overlap_until);
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    base_url: row.base_url,
    config: row.config,
    secret_configured: row.secret_ciphertext !== null,
    ...(row.kind === 'chat_a' && { bot_token_configured: row.bot_token_ciphertext !== null }),
    rotation_overlap_until: overlap !== null && overlap > now ? overlap.toISOString() : null,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
