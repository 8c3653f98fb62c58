/** Identical reads in flight share one request, and nothing is kept after (console/src/shared-read.ts). */
import { describe, expect, it } from 'vitest';
import { sharedRead } from '../../../console/src/shared-read.ts';

describe('shared reads', () => {
  it('gives a second asker the read in flight, and asks again once it settled', async () => {
    let requests = 0;
    const read = async () => {
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { items: [requests] };
    };
    const [first, second] = await Promise.all([sharedRead('case-alerts c1', read), sharedRead('case-alerts c1', read)]);
    expect(requests).toBe(1);
    expect(second).toBe(first);
    expect(await sharedRead('case-alerts c1', read)).toEqual({ items: [2] });
    await sharedRead('case-alerts c2', read);
    expect(requests).toBe(3);
  });

  it('hands a failure to everyone who asked, and forgets it', async () => {
    let requests = 0;
    const failing = async () => {
      requests += 1;
      throw new Error('403 forbidden');
    };
    const asked = [sharedRead('case-observables c1', failing), sharedRead('case-observables c1', failing)];
    for (const reading of asked) await expect(reading).rejects.toThrow('403 forbidden');
    expect(requests).toBe(1);
    expect(await sharedRead('case-observables c1', async () => 'fresh')).toBe('fresh');
  });
});
