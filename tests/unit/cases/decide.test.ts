/**
 * Every rule of the Case decider, given-when-then on plain data (SPEC.md "Cases", "Case
 * acknowledgement", "Other case moves"; docs/architecture.md "Habits" 4): given the events a case stream
 * holds, when a command is decided, then these events or this error. PUT /cases field
 * and ATT&CK changes have their own file (decide-update.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { caseDecider, type Actor, type CaseCommand, type CaseEvent } from '../../../domain/cases/index.ts';
import { noMentions } from '../../../domain/cases/mentions.ts';
import { given } from '../../support/decider.ts';

const T = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';
const ana = { userId: 'u-ana', email: 'ana@example.com' };
const bob = { userId: 'u-bob', email: 'bob@example.com' };

type Cmd<K extends CaseCommand['type']> = Extract<CaseCommand, { type: K }>;

const open = (over: Partial<Cmd<'open_case'>> = {}): CaseCommand => ({
  type: 'open_case',
  caseId: 'c1',
  number: 7,
  keyPrefix: 'SVC',
  title: 'Phishing',
  description: null,
  severity: 'high',
  tags: ['mail', 'mail', 'phish'],
  initialStatus: 'new',
  team: 'soc',
  private: false,
  correlationKey: 'rule:r1',
  actor: ana,
  now: T,
  ...over,
});
const opened: CaseEvent = {
  type: 'case.opened',
  data: {
    case_id: 'c1',
    key: 'SVC-7',
    number: 7,
    title: 'Phishing',
    description: null,
    severity: 'high',
    tags: ['mail', 'phish'],
    status: 'new',
    team: 'soc',
    private: false,
    correlation_key: 'rule:r1',
    opened_at: T,
    opened_by: 'ana@example.com',
    opened_by_id: 'u-ana',
  },
};
const statusChanged = (from: string, to: string): CaseEvent => ({ type: 'case.status_changed', data: { case_id: 'c1', from, to, note: null, at: T } });
const commented = (commentId: string, author: Actor = ana): CaseEvent => ({
  type: 'case.comment_added',
  data: { case_id: 'c1', comment_id: commentId, body: 'seen it', author_id: author.userId, author_email: author.email, mentions: noMentions(), at: T },
});
const acknowledged: CaseEvent = {
  type: 'case.acknowledged',
  data: { case_id: 'c1', acknowledged_at: T, acknowledged_by: 'ana@example.com', by_user_id: 'u-ana', via: null },
};
const acknowledge = (over: Partial<Cmd<'acknowledge'>> = {}): CaseCommand => ({ type: 'acknowledge', actor: bob, via: null, now: LATER, ...over });
const deleteComment = (over: Partial<Cmd<'delete_comment'>> = {}): CaseCommand => ({
  type: 'delete_comment',
  commentId: 'k1',
  actor: ana,
  actorIsAdmin: false,
  now: LATER,
  ...over,
});
const vocabulary = { severities: ['low', 'medium', 'high', 'critical'], statuses: ['new', 'in_progress', 'resolved', 'closed'] };
const runbookUpdate = (over: Partial<Cmd<'runbook_update'>> = {}): CaseCommand => ({
  type: 'runbook_update',
  changes: {},
  tagsAdd: [],
  status: null,
  comment: null,
  actor: { userId: null, email: 'runbook:triage' },
  vocabulary,
  now: LATER,
  ...over,
});

describe('open_case', () => {
  it('opens the case with its key, the initial status and its tags once each', () => {
    given(caseDecider, []).when(open()).then([opened]);
  });

  it('refuses to open a case twice', () => {
    const error = given(caseDecider, [opened]).when(open()).thenThrows('case_exists', 409);
    expect(error.params).toEqual({ case_id: 'c1' });
  });
});

describe('a command on a case that does not exist', () => {
  it.each<CaseCommand>([
    { type: 'append_alert', alertId: 'a1', title: 't', severity: 'high', correlated: true, now: T },
    { type: 'change_status', status: 'closed', note: null, now: T },
    acknowledge(),
    runbookUpdate({ tagsAdd: ['x'] }),
  ])('is refused as case_not_found ($type)', (command) => {
    given(caseDecider, []).when(command).thenThrows('case_not_found', 404);
  });
});

describe('alerts', () => {
  it('appends an alert and restarts the correlation window from it', () => {
    const { state } = given(caseDecider, [opened])
      .when({ type: 'append_alert', alertId: 'a1', title: 'Login burst', severity: 'low', correlated: true, now: LATER })
      .then([{ type: 'case.alert_appended', data: { case_id: 'c1', alert_id: 'a1', title: 'Login burst', severity: 'low', correlated: true, at: LATER } }]);
    expect(state).toMatchObject({ lastActivityAt: LATER });
  });

  it('records an alert taken out of the case', () => {
    given(caseDecider, [opened])
      .when({ type: 'remove_alert', alertId: 'a1', now: LATER })
      .then([{ type: 'case.alert_removed', data: { case_id: 'c1', alert_id: 'a1', at: LATER } }]);
  });
});

describe('change_status', () => {
  it('records the move from the current status, naming the ticket link that caused it', () => {
    given(caseDecider, [opened])
      .when({ type: 'change_status', status: 'in_progress', note: 'on it', viaTicketLink: 'l1', now: LATER })
      .then([{ type: 'case.status_changed', data: { case_id: 'c1', from: 'new', to: 'in_progress', note: 'on it', via_ticket_link: 'l1', at: LATER } }]);
  });

  it('decides nothing for the status the case has', () => {
    given(caseDecider, [opened, statusChanged('new', 'in_progress')])
      .when({ type: 'change_status', status: 'in_progress', note: null, now: LATER })
      .then([]);
  });
});

describe('assign', () => {
  it('records the new owner with the previous one, and nothing for the same owner', () => {
    const { events } = given(caseDecider, [opened])
      .when({ type: 'assign', ownerId: 'u-bob', ownerEmail: 'bob@example.com', now: LATER })
      .thenMatch([{ type: 'case.assigned', data: { owner_id: 'u-bob', owner_email: 'bob@example.com', previous_owner_id: null } }]);
    given(caseDecider, [opened, ...events])
      .when({ type: 'assign', ownerId: 'u-bob', ownerEmail: 'bob@example.com', now: LATER })
      .then([]);
  });
});

describe('acknowledge', () => {
  it('stamps the first acknowledgement with who and when', () => {
    given(caseDecider, [opened])
      .when(acknowledge())
      .then([
        { type: 'case.acknowledged', data: { case_id: 'c1', acknowledged_at: LATER, acknowledged_by: 'bob@example.com', by_user_id: 'u-bob', via: null } },
      ]);
  });

  it('names the pager and its agent when a page acknowledgement has no user', () => {
    given(caseDecider, [opened])
      .when(acknowledge({ actor: { userId: null, email: null }, via: { pager: 'pager_a', agent: 'Oncall Olga' } }))
      .thenMatch([
        { type: 'case.acknowledged', data: { acknowledged_by: 'pager_a:Oncall Olga', by_user_id: null, via: { pager: 'pager_a', agent: 'Oncall Olga' } } },
      ]);
  });

  it('keeps the first stamp: a second acknowledgement decides nothing, even once the case is closed', () => {
    given(caseDecider, [opened, acknowledged]).when(acknowledge()).then([]);
    given(caseDecider, [opened, acknowledged, statusChanged('new', 'closed')])
      .when(acknowledge())
      .then([]);
  });

  it('refuses to acknowledge a closed case that never was acknowledged', () => {
    const error = given(caseDecider, [opened, statusChanged('new', 'closed')])
      .when(acknowledge())
      .thenThrows('case_closed_unacknowledged', 422);
    expect(error.params).toEqual({ case_id: 'c1' });
  });
});

describe('link_page', () => {
  it('records the page a run sent for the case', () => {
    given(caseDecider, [opened])
      .when({ type: 'link_page', pager: 'pager_b', key: 'dedup-1', connection: 'opsgenie', runId: 'r1', stepId: 'page', now: LATER })
      .then([
        {
          type: 'case.page_linked',
          data: { case_id: 'c1', pager: 'pager_b', key: 'dedup-1', connection: 'opsgenie', run_id: 'r1', step_id: 'page', at: LATER },
        },
      ]);
  });
});

describe('comments', () => {
  it('adds a comment by its author with its mentions', () => {
    given(caseDecider, [opened])
      .when({ type: 'add_comment', commentId: 'k1', body: 'seen it', actor: ana, mentions: noMentions(), now: T })
      .then([commented('k1')]);
  });

  it('lets the author delete their comment', () => {
    given(caseDecider, [opened, commented('k1')])
      .when(deleteComment())
      .then([{ type: 'case.comment_deleted', data: { case_id: 'c1', comment_id: 'k1', deleted_by: 'ana@example.com', at: LATER } }]);
  });

  it("lets a team admin delete another's comment", () => {
    given(caseDecider, [opened, commented('k1')])
      .when(deleteComment({ actor: bob, actorIsAdmin: true }))
      .thenMatch([{ type: 'case.comment_deleted', data: { deleted_by: 'bob@example.com' } }]);
  });

  it("refuses anyone else deleting another's comment", () => {
    const error = given(caseDecider, [opened, commented('k1')])
      .when(deleteComment({ actor: bob }))
      .thenThrows('forbidden', 403);
    expect(error.params).toEqual({ comment_id: 'k1' });
  });

  it('refuses a comment by no known user to anyone but an admin', () => {
    given(caseDecider, [opened, commented('k1', { userId: null, email: null })])
      .when(deleteComment({ actor: { userId: null, email: 'runbook:x' } }))
      .thenThrows('forbidden', 403);
  });

  it('answers an unknown or already deleted comment as not found', () => {
    given(caseDecider, [opened]).when(deleteComment()).thenThrows('comment_not_found', 404);
    const { events } = given(caseDecider, [opened, commented('k1')])
      .when(deleteComment())
      .thenMatch([{ type: 'case.comment_deleted' }]);
    given(caseDecider, [opened, commented('k1'), ...events])
      .when(deleteComment({ actorIsAdmin: true }))
      .thenThrows('comment_not_found', 404);
  });
});

describe('attachments and evidence', () => {
  it('records an attachment with what the server computed of it', () => {
    given(caseDecider, [opened])
      .when({
        type: 'add_attachment',
        attachmentId: 'f1',
        filename: 'mail.eml',
        contentType: 'message/rfc822',
        size: 12,
        sha256: 'ab'.repeat(32),
        actor: ana,
        now: LATER,
      })
      .then([
        {
          type: 'case.attachment_added',
          data: {
            case_id: 'c1',
            attachment_id: 'f1',
            filename: 'mail.eml',
            content_type: 'message/rfc822',
            size: 12,
            sha256: 'ab'.repeat(32),
            uploaded_by: 'ana@example.com',
            at: LATER,
          },
        },
      ]);
  });

  it('pins evidence by its kind and reference', () => {
    given(caseDecider, [opened])
      .when({ type: 'pin_evidence', pinId: 'p1', kind: 'link', refId: null, url: 'https://example.com/x', note: 'the lure', actor: bob, now: LATER })
      .then([
        {
          type: 'case.evidence_pinned',
          data: {
            case_id: 'c1',
            pin_id: 'p1',
            kind: 'link',
            ref_id: null,
            url: 'https://example.com/x',
            note: 'the lure',
            pinned_by: 'bob@example.com',
            at: LATER,
          },
        },
      ]);
  });
});

describe('apply_template', () => {
  const apply = (over: Partial<Cmd<'apply_template'>> = {}): CaseCommand => ({
    type: 'apply_template',
    templateId: 'tpl-phish',
    tasks: [{ taskId: 't1', phase: 'triage', title: 'Pull headers' }],
    skipped: [{ phase: 'triage', title: 'Read mail' }],
    sla: { ack_minutes: 15, resolve_minutes: 240 },
    closedStatuses: new Set(['resolved', 'closed']),
    now: LATER,
    ...over,
  });

  it('records the tasks added and skipped, and the SLA policy of a case that has none', () => {
    given(caseDecider, [opened])
      .when(apply())
      .then([
        {
          type: 'case.template_applied',
          data: {
            case_id: 'c1',
            template_id: 'tpl-phish',
            added: [{ task_id: 't1', phase: 'triage', title: 'Pull headers' }],
            skipped: [{ phase: 'triage', title: 'Read mail' }],
            at: LATER,
          },
        },
        { type: 'case.sla_policy_applied', data: { case_id: 'c1', template_id: 'tpl-phish', ack_minutes: 15, resolve_minutes: 240, at: LATER } },
      ]);
  });

  it('keeps the SLA policy a first template set', () => {
    const { events } = given(caseDecider, [opened])
      .when(apply())
      .thenMatch([{ type: 'case.template_applied' }, { type: 'case.sla_policy_applied' }]);
    given(caseDecider, [opened, ...events])
      .when(apply({ templateId: 'tpl-other', sla: { ack_minutes: 5, resolve_minutes: null } }))
      .thenMatch([{ type: 'case.template_applied' }]);
  });

  it('refuses a case in a closed status', () => {
    const error = given(caseDecider, [opened, statusChanged('new', 'resolved')])
      .when(apply())
      .thenThrows('case_closed', 409);
    expect(error.params).toEqual({ case_id: 'c1', status: 'resolved' });
  });
});

describe('runbook_update (a runbook case.update step)', () => {
  it('merges the tags to add into the tags the stream has, once each', () => {
    const moved: CaseEvent = { type: 'case.updated', data: { case_id: 'c1', changes: { tags: ['mail', 'phish', 'concurrent'] }, at: T } };
    given(caseDecider, [opened, moved])
      .when(runbookUpdate({ tagsAdd: ['phish', 'triaged'] }))
      .then([{ type: 'case.updated', data: { case_id: 'c1', changes: { tags: ['mail', 'phish', 'concurrent', 'triaged'] }, at: LATER } }]);
  });

  it('decides nothing for tags the case has and values it holds', () => {
    given(caseDecider, [opened])
      .when(runbookUpdate({ tagsAdd: ['mail'], changes: { severity: 'high', title: 'Phishing' }, status: 'new' }))
      .then([]);
  });

  it('changes fields, the status and comments as the runbook, in that order', () => {
    given(caseDecider, [opened])
      .when(
        runbookUpdate({
          changes: { title: 'Phishing wave', severity: 'critical' },
          tagsAdd: ['wave'],
          status: 'in_progress',
          comment: { commentId: 'k9', body: 'escalated', mentions: noMentions() },
        }),
      )
      .then([
        {
          type: 'case.updated',
          data: { case_id: 'c1', changes: { title: 'Phishing wave', severity: 'critical', tags: ['mail', 'phish', 'wave'] }, at: LATER },
        },
        { type: 'case.status_changed', data: { case_id: 'c1', from: 'new', to: 'in_progress', note: null, at: LATER } },
        {
          type: 'case.comment_added',
          data: { case_id: 'c1', comment_id: 'k9', body: 'escalated', author_id: null, author_email: 'runbook:triage', mentions: noMentions(), at: LATER },
        },
      ]);
  });

  it('refuses a severity outside configuration, deciding nothing else', () => {
    const error = given(caseDecider, [opened])
      .when(runbookUpdate({ changes: { severity: 'catastrophic' }, tagsAdd: ['x'] }))
      .thenThrows('case_severity_invalid', 422);
    expect(error.message).toBe('severity must be one of low, medium, high, critical');
    expect(error.params).toEqual({ severity: 'catastrophic' });
  });

  it('refuses a status outside configuration', () => {
    const error = given(caseDecider, [opened])
      .when(runbookUpdate({ status: 'reopened' }))
      .thenThrows('case_status_invalid', 422);
    expect(error.message).toBe('status must be one of new, in_progress, resolved, closed');
    expect(error.params).toEqual({ status: 'reopened' });
  });
});
