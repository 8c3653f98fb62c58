/**
 * The install default of a gate's deadline (adapters/identity-service/approval-defaults.ts;
 * SPEC.md "Runs, steps and gates", "Limits"): identity's setting, kept for the TTL by the
 * service clock, one read for callers asking at once, and 24 hours whenever it cannot be
 * read, a failure not being kept.
 */
import { describe, expect, it } from 'vitest';
import { createApprovalDefaults, FALLBACK_APPROVAL_DEADLINE_H } from '../../../adapters/identity-service/approval-defaults.ts';
import { IdentityUnavailable, type ApprovalSettings } from '../../../adapters/identity-service/client.ts';
import { manualClock } from '../../support/clock.ts';

/** A settings source answering `answers` in turn (an Error is thrown), counting reads; after `hold`, reads wait for `state.release`. */
function source(answers: (number | Error)[]) {
  const state: { reads: number; release: () => void } = { reads: 0, release: () => {} };
  let held: Promise<void> = Promise.resolve();
  const read = async (): Promise<ApprovalSettings> => {
    const answer = answers[Math.min(state.reads, answers.length - 1)];
    state.reads++;
    await held;
    if (answer instanceof Error) throw answer;
    return { defaultDeadlineHours: answer ?? 0 };
  };
  const hold = () => {
    held = new Promise<void>((resolve) => {
      state.release = resolve;
    });
  };
  return { state, read, hold };
}

describe('approval deadline defaults', () => {
  it('keeps the setting for the TTL by the service clock, then reads it again', async () => {
    const clock = manualClock();
    const { state, read } = source([6, 12]);
    const defaults = createApprovalDefaults({ read, ttlMs: 60_000, now: clock.now, onUnavailable: () => undefined });
    expect(await defaults.deadlineHours()).toBe(6);
    clock.advance(59_999);
    expect(await defaults.deadlineHours()).toBe(6);
    expect(state.reads).toBe(1);
    clock.advance(1);
    expect(await defaults.deadlineHours()).toBe(12);
    expect(state.reads).toBe(2);
  });

  it('makes one read for callers asking while it is in flight', async () => {
    const { state, read, hold } = source([6]);
    hold();
    const defaults = createApprovalDefaults({ read, ttlMs: 60_000, now: manualClock().now, onUnavailable: () => undefined });
    const asked = [defaults.deadlineHours(), defaults.deadlineHours(), defaults.deadlineHours()];
    state.release();
    expect(await Promise.all(asked)).toEqual([6, 6, 6]);
    expect(state.reads).toBe(1);
  });

  it('falls back to 24 hours when identity cannot be read, says why, and asks again next time', async () => {
    const heard: string[] = [];
    const { state, read } = source([new IdentityUnavailable('timeout', 'slow'), new IdentityUnavailable('http_status', '500'), 8]);
    const defaults = createApprovalDefaults({ read, ttlMs: 60_000, now: manualClock().now, onUnavailable: (e) => heard.push(e.reason) });
    expect(FALLBACK_APPROVAL_DEADLINE_H).toBe(24);
    expect(await defaults.deadlineHours()).toBe(24);
    expect(await defaults.deadlineHours()).toBe(24);
    expect(await defaults.deadlineHours()).toBe(8);
    expect(heard).toEqual(['timeout', 'http_status']);
    expect(state.reads).toBe(3);
  });

  it('keeps nothing with a TTL of 0, and lets a bug through instead of hiding it behind the fallback', async () => {
    const { state, read } = source([6]);
    const defaults = createApprovalDefaults({ read, ttlMs: 0, now: manualClock().now, onUnavailable: () => undefined });
    await defaults.deadlineHours();
    await defaults.deadlineHours();
    expect(state.reads).toBe(2);
    const broken = createApprovalDefaults({ read: source([new TypeError('bug')]).read, ttlMs: 0, now: manualClock().now, onUnavailable: () => undefined });
    await expect(broken.deadlineHours()).rejects.toThrow(TypeError);
  });
});
