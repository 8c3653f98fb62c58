/**
 * The retention policy resolution (domain/retention/policy.ts) and its configuration
 * (SVC_RETENTION_*): an override outside the bounds makes the window unavailable
 * (`retention_days` null, never 0) instead of stopping the service.
 */
import { describe, expect, it } from 'vitest';
import { resolveRetentionPolicy, retentionCutoff, type RetentionSettings } from '../../../domain/retention/policy.ts';
import { sweepErrorClass } from '../../../runtime/worker/retention-sweep.ts';
import { loadConfig } from '../../../runtime/config.ts';
import { DomainError } from '../../../domain/shared/errors.ts';

const base: RetentionSettings = {
  enabled: true,
  class: 'case_records',
  realm: 'r1',
  defaultDays: 365,
  minDays: 30,
  maxDays: 3650,
  overrideDays: null,
  sweepIntervalHours: 24,
  batchLimit: 500,
};
const now = new Date('2026-11-23T00:00:00Z');

describe('retention policy', () => {
  it('uses the default window without an override', () => {
    const policy = resolveRetentionPolicy(base);
    expect(policy).toMatchObject({
      retention_days: 365,
      provenance: 'default',
      override_days: null,
      cause: null,
      contract_version: 1,
      resource: 'cases',
      realm: 'r1',
    });
    expect(retentionCutoff(policy, now)?.toISOString()).toBe('2025-11-23T00:00:00.000Z');
  });

  it('takes an override inside the bounds, the bounds included', () => {
    for (const days of [30, 90, 3650]) {
      expect(resolveRetentionPolicy({ ...base, overrideDays: days })).toMatchObject({
        retention_days: days,
        provenance: 'override',
        override_days: days,
        cause: null,
      });
    }
  });

  it('makes the window unavailable, null and never 0, for an override outside the bounds', () => {
    for (const [days, cause] of [
      [0, 'override_below_min'],
      [29, 'override_below_min'],
      [3651, 'override_above_max'],
    ] as const) {
      const policy = resolveRetentionPolicy({ ...base, overrideDays: days });
      expect(policy).toMatchObject({ retention_days: null, provenance: 'override', override_days: days, cause });
      expect(retentionCutoff(policy, now)).toBeNull();
    }
  });

  it('sweeps nothing while disabled', () => {
    expect(retentionCutoff(resolveRetentionPolicy({ ...base, enabled: false }), now)).toBeNull();
  });

  it('names a failed sweep by class, never by message', () => {
    expect(sweepErrorClass(new DomainError('stream_version_conflict', 409, 'secret detail', {}))).toBe('stream_version_conflict');
    expect(sweepErrorClass(Object.assign(new Error('relation "cases" at 10.0.0.1'), { code: '42P01' }))).toBe('database_error:42P01');
    expect(sweepErrorClass(Object.assign(new Error('/data/attachments/x'), { code: 'EACCES' }))).toBe('file_store_error:EACCES');
    expect(sweepErrorClass(new Error('anything'))).toBe('internal_error');
  });
});

describe('retention configuration', () => {
  it('defaults to 365 days within 30..3650, a daily sweep of 500 cases', () => {
    expect(loadConfig({}).retention).toEqual({
      enabled: true,
      class: 'case_records',
      realm: 'default',
      defaultDays: 365,
      minDays: 30,
      maxDays: 3650,
      overrideDays: null,
      sweepIntervalHours: 24,
      batchLimit: 500,
    });
  });

  it('keeps an out-of-bounds override for the policy to report, but refuses malformed values and crossed bounds', () => {
    expect(loadConfig({ SVC_RETENTION_DAYS: '0' }).retention.overrideDays).toBe(0);
    expect(loadConfig({ SVC_RETENTION_DAYS: '99999' }).retention.overrideDays).toBe(99999);
    expect(() => loadConfig({ SVC_RETENTION_DAYS: 'ten' })).toThrow('SVC_RETENTION_DAYS');
    expect(() => loadConfig({ SVC_RETENTION_DAYS: '-1' })).toThrow('SVC_RETENTION_DAYS');
    expect(() => loadConfig({ SVC_RETENTION_MIN_DAYS: '400' })).toThrow('SVC_RETENTION_MIN_DAYS');
    expect(() => loadConfig({ SVC_RETENTION_ENABLED: 'yes' })).toThrow('SVC_RETENTION_ENABLED');
    expect(loadConfig({ SVC_RETENTION_ENABLED: 'false' }).retention.enabled).toBe(false);
  });
});
