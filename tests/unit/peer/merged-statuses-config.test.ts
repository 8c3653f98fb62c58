/**
 * SVC_CASE_MERGED_STATUSES (docs/configuration.md): the statuses peer search skips as
 * "merged into another case"; none by default, and only statuses SVC_CASE_STATUSES has.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.ts';

describe('SVC_CASE_MERGED_STATUSES', () => {
  it('is empty by default', () => {
    expect(loadConfig({}).mergedStatuses).toEqual([]);
  });

  it('takes statuses of SVC_CASE_STATUSES', () => {
    expect(
      loadConfig({ SVC_CASE_STATUSES: 'new,merged,closed', SVC_CASE_CLOSED_STATUSES: 'closed', SVC_CASE_MERGED_STATUSES: ' merged ' }).mergedStatuses,
    ).toEqual(['merged']);
  });

  it('refuses a status SVC_CASE_STATUSES does not have', () => {
    expect(() => loadConfig({ SVC_CASE_MERGED_STATUSES: 'merged' })).toThrow('SVC_CASE_MERGED_STATUSES must be a subset of SVC_CASE_STATUSES');
  });
});
