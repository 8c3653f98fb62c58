/**
 * The pure mappings between the event store port (adapters/event-store/port.ts) and
 * KurrentDB that adapters/event-store/kurrentdb.ts uses. They sit outside
 * adapters/event-store/ so that unit tests cover them without a client or a server (the
 * `unit-tests-do-no-io` rule keeps tests/unit out of that folder).
 *
 * - Versions: a port version is a stream's event count (its first event is version 1, a
 *   new stream is at 0); a KurrentDB revision is the 0-based event number. So revision =
 *   version - 1, and an expected version 0 is `no_stream`.
 * - Positions: the port's global position is a JS number; KurrentDB's is a bigint byte
 *   offset in its transaction log. Every event the server writes today is committed on
 *   its own record, so its commit and prepare positions are both that record's log
 *   position, and one number resumes a `$all` read exactly. Conversion is checked: a
 *   position above Number.MAX_SAFE_INTEGER (8 PiB of log) throws instead of rounding.
 * - System events (a `$` event type or stream) are the server's own and never reach the port.
 * - Metadata: a multi-stream append takes string values only, so each member of our
 *   metadata is stored JSON-encoded under its own key, on every append path alike.
 */
import type { Position, StreamState } from '@kurrent/kurrentdb-client';
import type { EventMetadata } from '../../domain/shared/messages.ts';
import { asJsonb } from '../event-store/jsonb.ts';
import type { ExpectedVersion } from '../event-store/port.ts';

/** The stream state a write with `expected` asks the server to check. Throws on a version that is not a whole number >= 0. */
export function expectedStreamState(expected: ExpectedVersion): StreamState {
  if (expected === 'any') return 'any';
  if (!Number.isSafeInteger(expected) || expected < 0) throw new Error(`expected version ${expected} is not a whole number >= 0`);
  return expected === 0 ? 'no_stream' : BigInt(expected - 1);
}

/** The port version of a stream whose last event has `revision`. */
export function versionOfRevision(revision: bigint): number {
  if (revision < 0n) throw new Error(`revision ${revision} is not an event number`);
  return checkedNumber(revision + 1n, 'stream version');
}

/**
 * The port version of a stream in the state a conflict reports: `no_stream` is 0. The
 * negative states (-5 soft-deleted, -6 tombstoned) mean a deleted stream, which this
 * store never makes, so they throw.
 */
export function versionOfState(state: 'no_stream' | bigint, streamId: string): number {
  if (state === 'no_stream') return 0;
  if (state < 0n) throw new Error(`stream ${streamId} is deleted on the KurrentDB server (state ${state})`);
  return versionOfRevision(state);
}

/** A KurrentDB log position as a port position. Throws above Number.MAX_SAFE_INTEGER. */
export function positionNumber(position: bigint): number {
  return checkedNumber(position, 'KurrentDB log position');
}

/**
 * The port position of an event read from `$all`. Throws when it has none, or when its
 * commit and prepare positions differ (an explicit transaction of the retired TCP API,
 * whose events share a commit position: one number could not resume inside it).
 */
export function allPositionOf(position: Position | undefined): number {
  if (!position) throw new Error('KurrentDB returned a $all event without its position');
  if (position.commit !== position.prepare) {
    throw new Error(`KurrentDB event at ${position.prepare} was committed at ${position.commit}: events of explicit transactions are not supported`);
  }
  return positionNumber(position.commit);
}

/** The port position of an event read from a stream: its record's log position (servers before 22.6 send none, and this throws). */
export function streamPositionOf(position: Position | undefined): number {
  if (!position) throw new Error('KurrentDB returned an event without its position (the server needs to be 22.6 or later)');
  return positionNumber(position.prepare);
}

/** Where a forward `$all` read that must see every event after `after` starts (reads are inclusive: the event at `after` comes back too). */
export function readAllFrom(after: number): Position | 'start' {
  if (!Number.isSafeInteger(after) || after < 0) throw new Error(`position ${after} is not a whole number >= 0`);
  return after === 0 ? 'start' : { commit: BigInt(after), prepare: BigInt(after) };
}

/** Whether an event is the server's own: a `$` event type (metadata, links, projections) or a `$` stream. */
export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

/** Our metadata as the string map every append path accepts: each member JSON-encoded under its key. */
export function encodeMetadata(metadata: EventMetadata | undefined): Record<string, string> {
  const encoded: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (value !== undefined) encoded[key] = JSON.stringify(value);
  }
  return encoded;
}

/**
 * Metadata as read back: the members `encodeMetadata` wrote, decoded, in the key order a
 * Postgres `jsonb` column gives. The server's own `$` members (a multi-stream append adds
 * `$schema.*`) are dropped; a member that is not JSON-encoded (another writer's) is kept
 * as it is.
 */
export function decodeMetadata(raw: unknown): EventMetadata {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof Uint8Array) return {};
  const decoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('$')) continue;
    decoded[key] = typeof value === 'string' ? parseOrKeep(value) : value;
  }
  return asJsonb(decoded) as EventMetadata;
}

/** Event data as stored: JSON with the key order of a `jsonb` column, so a read gives what the Postgres store gives. */
export function encodeData(data: Record<string, unknown>): Record<string, unknown> {
  return asJsonb(data) as Record<string, unknown>;
}

/** Event data as read back: a JSON object, or `{}` for an event whose body is not one (another writer's binary event). */
export function decodeData(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) && !(data instanceof Uint8Array) ? (data as Record<string, unknown>) : {};
}

function parseOrKeep(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function checkedNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what} ${value} is above Number.MAX_SAFE_INTEGER`);
  return Number(value);
}
