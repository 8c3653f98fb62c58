/**
 * The console's first reads (console/src/first-reads.ts): started before React, waited for
 * at most a cap, their answers handed to the first render once, a failure or a pending
 * read left for the page to take as a promise.
 */
import { describe, expect, it } from 'vitest';
import { firstReadData, firstReadsSettled, startFirstRead, takeFirstRead } from '../../../console/src/first-reads.ts';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('first reads', () => {
  it('waits for every started read, then hands each answer once (twice within one task, as StrictMode renders)', async () => {
    startFirstRead('me', () => later(5, { id: 'u1' }));
    startFirstRead('cases?', () => later(10, { items: [] }));
    await firstReadsSettled(1000);
    expect(firstReadData('me')).toEqual({ id: 'u1' });
    expect(firstReadData('me')).toEqual({ id: 'u1' });
    await Promise.resolve();
    expect(firstReadData('me')).toBeUndefined();
    expect(await takeFirstRead('me', async () => 'read again')).toBe('read again');
    expect(firstReadData('cases?')).toEqual({ items: [] });
  });

  it('stops waiting at the cap, and leaves a pending read to be taken as a promise', async () => {
    startFirstRead('slow', () => later(200, 'late'));
    await firstReadsSettled(20);
    expect(firstReadData('slow')).toBeUndefined();
    expect(await takeFirstRead('slow', async () => 'not this')).toBe('late');
  });

  it('leaves a failed read to the page, which shows its error', async () => {
    startFirstRead('broken', () => Promise.reject(new Error('401 sign in')));
    await firstReadsSettled(1000);
    expect(firstReadData('broken')).toBeUndefined();
    await expect(takeFirstRead('broken', async () => 'not this')).rejects.toThrow('401 sign in');
  });
});
