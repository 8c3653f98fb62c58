/**
 * The pure rules of a case merge (domain/cases/merge.ts, the `merge_into` and
 * `receive_merge` decisions, `move_task`, and correlation past a merged case).
 */
import { describe, expect, it } from 'vitest';
import { decideCorrelation } from '../../../domain/alerts/intake.ts';
import { caseDecider, type CaseCommand, type CaseState } from '../../../domain/cases/index.ts';
import { mergedPinRef, mergeWidensAccess } from '../../../domain/cases/merge.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { taskDecider } from '../../../domain/tasks/index.ts';
import { openedCase } from '../../support/cases.ts';

const now = '2026-12-01T09:00:00.000Z';
const mergeInto = (targetId = 'c9', mergedStatus = 'closed'): CaseCommand => ({
  type: 'merge_into',
  targetId,
  targetKey: 'SVC-9',
  mergedStatus,
  reason: 'dup',
  now,
});
const afterCommand = (state: CaseState, command: CaseCommand) => caseDecider.decide(command, state).reduce(caseDecider.evolve, state);
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, status: error.status };
    throw error;
  }
  return null;
};

describe('merge_into', () => {
  it('closes the source with a note naming the target, then points it at the target', () => {
    const events = caseDecider.decide(mergeInto(), openedCase());
    expect(events.map((e) => e.type)).toEqual(['case.status_changed', 'case.merged']);
    expect(events[0]?.data).toMatchObject({ from: 'new', to: 'closed', note: 'merged into SVC-9' });
    expect(events[1]?.data).toEqual({ case_id: 'c1', into_case_id: 'c9', into_key: 'SVC-9', reason: 'dup', at: now });
  });

  it('decides nothing when the source already points at that target, and refuses another target', () => {
    const merged = afterCommand(openedCase(), mergeInto());
    expect(caseDecider.decide(mergeInto(), merged)).toEqual([]);
    expect(refusal(() => caseDecider.decide(mergeInto('c8'), merged))).toEqual({ code: 'case_already_merged', status: 409 });
  });

  it('refuses the target itself, and a merged case refuses alerts, status changes and merges into it', () => {
    expect(refusal(() => caseDecider.decide(mergeInto('c1'), openedCase()))).toEqual({ code: 'case_merge_self', status: 422 });
    const merged = afterCommand(openedCase(), mergeInto());
    const append: CaseCommand = { type: 'append_alert', alertId: 'a1', title: 't', severity: 'low', correlated: false, now };
    expect(refusal(() => caseDecider.decide(append, merged))?.code).toBe('case_already_merged');
    expect(refusal(() => caseDecider.decide({ type: 'change_status', status: 'new', note: null, now }, merged))?.code).toBe('case_already_merged');
    const receive: CaseCommand = { type: 'receive_merge', sources: [], reason: 'x', copies: { comments: [], attachments: [], pins: [] }, now };
    expect(refusal(() => caseDecider.decide(receive, merged))?.code).toBe('case_already_merged');
  });

  it('sends correlation past a merged case to a new one', () => {
    const merged = afterCommand(openedCase({ initialStatus: 'in_progress' }), mergeInto('c9', 'merged'));
    expect(decideCorrelation(merged, new Date(now), 3_600_000, new Set(['closed']))).toEqual({ kind: 'open' });
  });
});

describe('receive_merge', () => {
  it('records the family, then the copies with their origin, keeping the original authors', () => {
    const from = { case_id: 'c2', id: 'x1', at: '2026-11-30T08:00:00.000Z' };
    const command: CaseCommand = {
      type: 'receive_merge',
      sources: [
        { case_id: 'c2', key: 'SVC-2' },
        { case_id: 'c3', key: 'SVC-3' },
      ],
      reason: 'one campaign',
      copies: {
        comments: [{ commentId: 'm1', body: 'hello', authorId: 'u7', authorEmail: 'bo@example.com', mergedFrom: from }],
        attachments: [{ attachmentId: 'f1', filename: 'a.txt', contentType: 'text/plain', size: 3, sha256: 'ab', uploadedBy: 'bo', mergedFrom: from }],
        pins: [{ pinId: 'p1', kind: 'link', refId: null, url: 'https://example.com/', note: 'n', pinnedBy: 'bo', mergedFrom: from }],
      },
      now,
    };
    const events = caseDecider.decide(command, openedCase());
    expect(events.map((e) => e.type)).toEqual(['case.merge_received', 'case.comment_added', 'case.attachment_added', 'case.evidence_pinned']);
    expect(events[1]?.data).toMatchObject({ comment_id: 'm1', author_id: 'u7', author_email: 'bo@example.com', merged_from: from });
    const state = events.reduce(caseDecider.evolve, openedCase());
    expect(state.exists && state.mergedFrom.map((m) => m.key)).toEqual(['SVC-2', 'SVC-3']);
  });
});

describe('mergeWidensAccess', () => {
  const reach = (team: string | null, priv = false, members: string[] = []) => ({ team, private: priv, members });

  it('refuses a team case into an org-wide or another team case, and allows narrowing', () => {
    expect(mergeWidensAccess(reach('red'), reach('blue'))).toBe(true);
    expect(mergeWidensAccess(reach('red'), reach(null))).toBe(true);
    expect(mergeWidensAccess(reach(null), reach('red'))).toBe(false);
    expect(mergeWidensAccess(reach('red'), reach('red'))).toBe(false);
    expect(mergeWidensAccess(reach('red'), reach('red', true, ['u1']))).toBe(false);
  });

  it('lets a private case go only into a private case of its team whose members it has', () => {
    expect(mergeWidensAccess(reach('red', true, ['u1']), reach('red'))).toBe(true);
    expect(mergeWidensAccess(reach('red', true, ['u1']), reach('red', true, ['u1', 'u2']))).toBe(true);
    expect(mergeWidensAccess(reach('red', true, ['u1', 'u2']), reach('red', true, ['u2']))).toBe(false);
  });
});

describe('mergedPinRef', () => {
  const maps = { observable: new Map([['o-old', 'o-new']]), attachment: new Map([['f-old', 'f-new']]) };

  it('points observable and attachment pins at the copies, and keeps the rest', () => {
    expect(mergedPinRef('observable', 'o-old', maps)).toBe('o-new');
    expect(mergedPinRef('attachment', 'f-old', maps)).toBe('f-new');
    expect(mergedPinRef('observable', 'gone', maps)).toBe('gone');
    expect(mergedPinRef('timeline', '42', maps)).toBe('42');
    expect(mergedPinRef('link', null, maps)).toBeNull();
  });
});

describe('move_task', () => {
  it('moves a task of the source to the target once', () => {
    const created = taskDecider.decide(
      {
        type: 'create_task',
        taskId: 't1',
        caseId: 'c1',
        title: 'Pull logs',
        description: null,
        phase: null,
        position: 0,
        status: 'open',
        assignee: null,
        dueAt: null,
        actor: { userId: 'u1', email: null },
        now,
      },
      taskDecider.initialState(),
    );
    const state = created.reduce(taskDecider.evolve, taskDecider.initialState());
    const moved = taskDecider.decide({ type: 'move_task', caseId: 'c1', toCaseId: 'c9', now }, state);
    expect(moved).toEqual([{ type: 'task.moved', data: { task_id: 't1', case_id: 'c9', from_case_id: 'c1', at: now } }]);
    const there = moved.reduce(taskDecider.evolve, state);
    expect(taskDecider.decide({ type: 'move_task', caseId: 'c9', toCaseId: 'c9', now }, there)).toEqual([]);
  });
});
