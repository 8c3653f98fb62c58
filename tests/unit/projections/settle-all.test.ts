/** projections/settle-all.ts: concurrent writes of one transaction are all settled before a failure is thrown. */
import { describe, expect, it } from 'vitest';
import { settleAll } from '../../../projections/settle-all.ts';

const later = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(value) : resolve(value)), ms));

describe('settleAll', () => {
  it('resolves once every item settled, skipping the writes marked false', async () => {
    const done: number[] = [];
    await settleAll([later(5, 1).then((n) => done.push(n)), false, later(1, 2).then((n) => done.push(n))]);
    expect(done.sort()).toEqual([1, 2]);
  });

  it('after a failure, still waits for the chains still running before it throws', async () => {
    const done: string[] = [];
    const slowChain = later(20, 'first').then(async () => {
      done.push('first');
      await later(5, null);
      done.push('second');
    });
    await expect(settleAll([later(1, new Error('insert failed'), true), slowChain])).rejects.toThrow('insert failed');
    expect(done).toEqual(['first', 'second']);
  });

  it('throws the failure that came first in time, not the first in the list', async () => {
    const aborted = later(10, new Error('current transaction is aborted'), true);
    const cause = later(1, new Error('duplicate key'), true);
    await expect(settleAll([aborted, cause])).rejects.toThrow('duplicate key');
  });
});
