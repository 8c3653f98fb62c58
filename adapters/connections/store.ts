/**
 * Connections with their secret sealed at rest (SPEC.md "Connection"). The secret is
 * write-only: views carry `secret_configured` only; `resolveByName` decrypts it for the
 * worker. No error message carries a secret.
 */
import type { Kysely, Selectable } from 'kysely';
import { conflict, notFound, unprocessable } from '../../domain/shared/errors.ts';
import type { ConnectionsTable, Database } from '../../projections/database.ts';
import type { ResolvedConnection } from '../actions/action.ts';
import type { SecretBox } from './secret-box.ts';

/** A connection as the API shows it; timestamps are RFC 3339 strings. */
export type ConnectionView = {
  id: string;
  kind: string;
  name: string;
  base_url: string | null;
  config: Record<string, unknown>;
  secret_configured: boolean;
  created_at: string;
  updated_at: string;
};

export type NewConnection = {
  kind: string;
  name: string;
  base_url?: string | null;
  config?: Record<string, unknown>;
  secret?: string | null;
};

export type ConnectionStore = ReturnType<typeof createConnectionStore>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The connection store over `db`. `ids` gives new connection ids (UUIDs), `now` the clock.
 * Errors (DomainError): create answers 409 'connection_name_taken' for a used name and 422
 * 'detector_connection_secret_refused' for a `detector` connection sent with a secret;
 * get answers 404 'connection_not_found'. A sealed secret is bound to its connection id.
 */
export function createConnectionStore(db: Kysely<Database>, box: SecretBox, ids: () => string, now: () => Date) {
  return {
    /** Creates a connection; the secret, if any, is sealed before it reaches the database. */
    async create(input: NewConnection): Promise<ConnectionView> {
      const secret = input.secret ?? null;
      if (input.kind === 'detector' && secret !== null) {
        throw unprocessable('detector_connection_secret_refused', 'a detector connection takes no secret: the service calls the detector with exchanged tokens');
      }
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
            config: JSON.stringify(input.config ?? {}),
            secret_ciphertext: secret === null ? null : box.seal(secret, secretAad(id)),
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toView(row);
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505') {
          throw conflict('connection_name_taken', `a connection named '${input.name}' already exists`, { name: input.name });
        }
        throw error;
      }
    },

    /** Every connection, by name. */
    async list(): Promise<ConnectionView[]> {
      const rows = await db.selectFrom('connections').selectAll().orderBy('name').execute();
      return rows.map(toView);
    },

    /** One connection by id; 404 'connection_not_found' (also for an id that is not a UUID). */
    async get(id: string): Promise<ConnectionView> {
      const row = UUID.test(id) ? await db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
      if (!row) throw notFound('connection_not_found', 'connection not found', { id });
      return toView(row);
    },

    /**
     * The named connection with its secret decrypted, for the worker only; null when absent.
     * Throws an Error naming the connection when its sealed secret does not open.
     */
    async resolveByName(name: string): Promise<ResolvedConnection | null> {
      const row = await db.selectFrom('connections').selectAll().where('name', '=', name).executeTakeFirst();
      if (!row) return null;
      let secret: string | null = null;
      if (row.secret_ciphertext !== null) {
        try {
          secret = box.open(row.secret_ciphertext, secretAad(row.id));
        } catch (error) {
          throw new Error(`the secret of connection '${row.name}' cannot be decrypted`, { cause: error });
        }
      }
      return { id: row.id, kind: row.kind, name: row.name, base_url: row.base_url, config: row.config, secret };
    },
  };
}

// Namespaced so a sealed connection secret cannot be swapped with another kind of sealed value.
function secretAad(id: string): string {
  return `connections/${id}`;
}

function toView(row: Selectable<ConnectionsTable>): ConnectionView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    base_url: row.base_url,
    config: row.config,
    secret_configured: row.secret_ciphertext !== null,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
