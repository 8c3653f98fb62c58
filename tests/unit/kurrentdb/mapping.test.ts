/**
 * The KurrentDB event store's pure mappings (adapters/kurrentdb/mapping.ts): versions and
 * revisions, positions, the system-event filter, and metadata and data as stored. The
 * only part of that store that runs without a server.
 */
import { describe, expect, it } from 'vitest';
import {
  allPositionOf,
  decodeData,
  decodeMetadata,
  encodeData,
  encodeMetadata,
  expectedStreamState,
  isSystemEvent,
  positionNumber,
  readAllFrom,
  streamPositionOf,
  versionOfRevision,
  versionOfState,
} from '../../../adapters/kurrentdb/mapping.ts';

describe('versions and revisions', () => {
  it('asks for no_stream at version 0, revision version-1 after, and no check for any', () => {
    expect(expectedStreamState(0)).toBe('no_stream');
    expect(expectedStreamState(1)).toBe(0n);
    expect(expectedStreamState(42)).toBe(41n);
    expect(expectedStreamState('any')).toBe('any');
  });

  it('refuses an expected version that is not a whole number >= 0', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => expectedStreamState(bad)).toThrow('expected version');
  });

  it('reads a revision as the version after it, and a conflict state as the actual version', () => {
    expect(versionOfRevision(0n)).toBe(1);
    expect(versionOfRevision(41n)).toBe(42);
    expect(versionOfState('no_stream', 's')).toBe(0);
    expect(versionOfState(4n, 's')).toBe(5);
    expect(() => versionOfState(-5n, 'case-1')).toThrow('stream case-1 is deleted');
    expect(() => versionOfRevision(-1n)).toThrow('not an event number');
  });
});

describe('positions', () => {
  it('converts a log position to a number, and refuses one a number cannot hold exactly', () => {
    expect(positionNumber(0n)).toBe(0);
    expect(positionNumber(123_456_789n)).toBe(123_456_789);
    expect(positionNumber(BigInt(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => positionNumber(BigInt(Number.MAX_SAFE_INTEGER) + 1n)).toThrow('above Number.MAX_SAFE_INTEGER');
  });

  it('takes a $all event at its log position, refusing one whose commit and prepare positions differ', () => {
    expect(allPositionOf({ commit: 4096n, prepare: 4096n })).toBe(4096);
    expect(() => allPositionOf({ commit: 4096n, prepare: 4200n })).toThrow('explicit transactions');
    expect(() => allPositionOf(undefined)).toThrow('without its position');
  });

  it('takes a stream event at its prepare position', () => {
    expect(streamPositionOf({ commit: 4096n, prepare: 4200n })).toBe(4200);
    expect(() => streamPositionOf(undefined)).toThrow('22.6');
  });

  it('starts a read after 0 at the start, and after a position at that position (reads are inclusive)', () => {
    expect(readAllFrom(0)).toBe('start');
    expect(readAllFrom(8192)).toEqual({ commit: 8192n, prepare: 8192n });
    expect(() => readAllFrom(-1)).toThrow('position');
  });
});

describe('system events', () => {
  it('are events of a $ type or in a $ stream', () => {
    expect(isSystemEvent('case-1', 'case.opened')).toBe(false);
    expect(isSystemEvent('$$case-1', '$metadata')).toBe(true);
    expect(isSystemEvent('$ce-case', '$>')).toBe(true);
    expect(isSystemEvent('$stats-127.0.0.1:2113', 'StatsCollected')).toBe(true);
    expect(isSystemEvent('case-1', '$streamDeleted')).toBe(true);
  });
});

describe('metadata and data as stored', () => {
  const metadata = { correlation_id: 'c-1', actor: { kind: 'user' as const, id: 'u-1', email: null } };

  it('stores every metadata member as a JSON string, which a multi-stream append requires', () => {
    expect(encodeMetadata(metadata)).toEqual({ correlation_id: '"c-1"', actor: '{"kind":"user","id":"u-1","email":null}' });
    expect(encodeMetadata(undefined)).toEqual({});
    expect(encodeMetadata({ causation_id: undefined })).toEqual({});
  });

  it('reads metadata back without the server $ members, in jsonb key order', () => {
    const stored = { ...encodeMetadata(metadata), '$schema.format': 'Json', '$schema.name': 'case.opened' };
    const read = decodeMetadata(stored);
    expect(read).toEqual(metadata);
    expect(JSON.stringify(read)).toBe('{"actor":{"id":"u-1","kind":"user","email":null},"correlation_id":"c-1"}');
  });

  it('keeps metadata another writer stored as it is, and reads none as empty', () => {
    expect(decodeMetadata({ source: 'not json', n: 3 })).toEqual({ source: 'not json', n: 3 });
    expect(decodeMetadata(undefined)).toEqual({});
    expect(decodeMetadata(new Uint8Array([1, 2]))).toEqual({});
  });

  it('stores data with jsonb key order and reads a JSON object back as it is', () => {
    expect(JSON.stringify(encodeData({ zeta: 1, b: { y: 2, x: 1 }, a: undefined }))).toBe('{"b":{"x":1,"y":2},"zeta":1}');
    expect(decodeData({ n: 1 })).toEqual({ n: 1 });
    expect(decodeData(new Uint8Array([1]))).toEqual({});
    expect(decodeData('text')).toEqual({});
  });
});
