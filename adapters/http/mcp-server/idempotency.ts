/**
 * Idempotency of the MCP tool server's effectful calls (SPEC.md "Peer endpoints",
 * `/peer/v1/mcp`: "effectful calls idempotent per `idempotency_key`"), kept in the
 * `mcp_idempotency` table (migration 0033) so every API process of a scale-out shares it.
 *
 * A call is keyed by (actor subject, tool, key). `begin` inserts a pending row first: the
 * primary key lets exactly one of any number of concurrent calls, in any process, own the
 * key and dispatch; `finish` then stores the answer it got (status and body text, whatever
 * the status). A later call with the key replays that answer without dispatching; one with
 * other arguments (a different digest) is refused, as is one arriving while the owner is
 * still running. Rows are kept `keepMs` after they were created, then deleted by the next
 * `begin` (at most one purge per `sweepIntervalMs`); a pending row left by a process that
 * died mid-call answers "in progress" until then.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canonicalJson } from '../../../domain/shared/canonical-json.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import type { Database } from '../../../projections/database.ts';
import type { Clock } from '../../shared/clock.ts';

/** One effectful call as the store knows it: who, which tool, which key, and the digest of its other arguments. */
export type IdempotentCall = { subject: string; tool: string; key: string; digest: string };

/** The answer a dispatched call got: its HTTP status and body text, exactly as the route gave them. */
export type StoredAnswer = { status: number; text: string };

/** What `begin` found: this call owns the key, or the key already answered, or it is in use otherwise. */
export type Begun = { kind: 'owner' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'reused' } | { kind: 'in_progress' };

export type IdempotencyStore = {
  /** Claims `call`'s key, or says why it cannot. */
  begin: (call: IdempotentCall) => Promise<Begun>;
  /** Stores the answer of a call that owns its key. */
  finish: (call: IdempotentCall, answer: StoredAnswer) => Promise<void>;
  /** Frees the key of a call that owns it and failed before answering, so a retry runs; an answered key stays. */
  release: (call: IdempotentCall) => Promise<void>;
};

/**
 * Claims `call`'s key in `store` for a call that may go on: it owns the key now, or the
 * key already answered and that answer is to be replayed. `keyName` is how the caller
 * spells the key (`idempotency_key`, `Idempotency-Key`), for the refusals' words.
 *
 * @throws DomainError 409 `idempotency_key_reused` (the key came with other arguments) or
 *   `idempotency_key_in_progress` (its first call has not answered yet).
 */
export async function claimKey(store: IdempotencyStore, call: IdempotentCall, keyName: string): Promise<Extract<Begun, { kind: 'owner' | 'replay' }>> {
  const begun = await store.begin(call);
  if (begun.kind === 'reused') throw new DomainError('idempotency_key_reused', 409, `this ${keyName} was used with other arguments`, {});
  if (begun.kind === 'in_progress') throw new DomainError('idempotency_key_in_progress', 409, `a call with this ${keyName} is still running`, {});
  return begun;
}

/** `sha256:<hex>` of the canonical JSON (RFC 8785) of a call's arguments, so two spellings of one object match. */
export function argumentsDigest(args: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`;
}

/**
 * The store over `db`. `keepMs` is how long a key is remembered (SVC_MCP_IDEMPOTENCY_HOURS);
 * `sweepIntervalMs` (default 60 000) the least time between two purges of older rows.
 */
export function createIdempotencyStore(db: Kysely<Database>, options: { now: Clock; keepMs: number; sweepIntervalMs?: number }): IdempotencyStore {
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  let lastSweep = 0;
  const where = (call: IdempotentCall) =>
    db
      .selectFrom('mcp_idempotency')
      .select(['arguments_digest', 'status', 'answer'])
      .where('actor_subject', '=', call.subject)
      .where('tool', '=', call.tool)
      .where('idempotency_key', '=', call.key);

  return {
    begin: async (call) => {
      const at = options.now();
      if (at.getTime() - lastSweep >= sweepIntervalMs) {
        lastSweep = at.getTime();
        await db
          .deleteFrom('mcp_idempotency')
          .where('created_at', '<', new Date(at.getTime() - options.keepMs))
          .execute();
      }
      const inserted = await db
        .insertInto('mcp_idempotency')
        .values({ actor_subject: call.subject, tool: call.tool, idempotency_key: call.key, arguments_digest: call.digest, created_at: at })
        .onConflict((oc) => oc.columns(['actor_subject', 'tool', 'idempotency_key']).doNothing())
        .returning('tool')
        .executeTakeFirst();
      if (inserted !== undefined) return { kind: 'owner' };
      const row = await where(call).executeTakeFirst();
      // Purged between the insert and this read: the key is free again, but this call lost its turn.
      if (row === undefined) return { kind: 'in_progress' };
      if (row.arguments_digest !== call.digest) return { kind: 'reused' };
      if (row.status === null || row.answer === null) return { kind: 'in_progress' };
      return { kind: 'replay', answer: { status: row.status, text: row.answer } };
    },
    finish: async (call, answer) => {
      await db
        .updateTable('mcp_idempotency')
        .set({ status: answer.status, answer: answer.text, completed_at: options.now() })
        .where('actor_subject', '=', call.subject)
        .where('tool', '=', call.tool)
        .where('idempotency_key', '=', call.key)
        .execute();
    },
    release: async (call) => {
      await db
        .deleteFrom('mcp_idempotency')
        .where('actor_subject', '=', call.subject)
        .where('tool', '=', call.tool)
        .where('idempotency_key', '=', call.key)
        .where('status', 'is', null)
        .execute();
    },
  };
}
