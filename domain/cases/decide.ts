/**
 * Case decisions: one small function per command (SPEC.md "Cases", "Case acknowledgement").
 *
 * Errors: `case_not_found` (404) for a command on a case that does not exist,
 * `case_exists` (409) for opening twice, `case_closed_unacknowledged` (422) for
 * acknowledging a closed case that never was acknowledged, `comment_not_found` (404) and
 * `forbidden` (403) for deleting a comment that is gone or not the actor's,
 * `case_closed` (409) for applying a template to a closed case, `case_severity_invalid`
 * and `case_status_invalid` (422) for a runbook update naming a severity or status
 * outside configuration (422 as the HTTP routes refuse them), `ai_triage_missing` (409)
 * for feedback on a case with no AI verdict, `case_already_merged` (409) for a new alert,
 * a status change or a merge on a case merged into another, `case_merge_self` (422) for
 * merging a case into itself, `custom_field_required` (422) for a status a required
 * custom field has no value for.
 */
import { conflict, DomainError, notFound, unprocessable } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { TriageVerdict } from '../ai/triage.ts';
import { requiredFieldNames } from '../custom-fields/fields.ts';
import type { CaseCommand } from './commands.ts';
import type { CaseChanges, CaseEvent } from './events.ts';
import type { CaseState } from './state.ts';

type Existing = Extract<CaseState, { exists: true }>;
type Cmd<T extends CaseCommand['type']> = Extract<CaseCommand, { type: T }>;

export function decideCase(command: CaseCommand, state: CaseState): CaseEvent[] {
  if (command.type === 'open_case') return openCase(command, state);
  if (!state.exists) throw notFound('case_not_found', 'case not found');
  switch (command.type) {
    case 'merge_into':
      return mergeInto(command, state);
    case 'receive_merge':
      return receiveMerge(command, state);
    case 'append_alert':
      return appendAlert(command, state);
    case 'remove_alert':
      return [{ type: 'case.alert_removed', data: { case_id: state.id, alert_id: command.alertId, at: command.now } }];
    case 'change_status':
      return changeStatus(command, state);
    case 'assign':
      return assign(command, state);
    case 'acknowledge':
      return acknowledge(command, state);
    case 'link_page':
      return [
        {
          type: 'case.page_linked',
          data: {
            case_id: state.id,
            pager: command.pager,
            key: command.key,
            connection: command.connection,
            run_id: command.runId,
            step_id: command.stepId,
            at: command.now,
          },
        },
      ];
    case 'add_comment':
      return addComment(command, state);
    case 'delete_comment':
      return deleteComment(command, state);
    case 'update_case':
      return updateCase(command, state);
    case 'runbook_update':
      return runbookUpdate(command, state);
    case 'add_attachment':
      return addAttachment(command, state);
    case 'pin_evidence':
      return pinEvidence(command, state);
    case 'apply_template':
      return applyTemplate(command, state);
    case 'record_ai_triage':
      return [{ type: 'case.ai_triage', data: { case_id: state.id, record: command.record, requested_by: command.requestedBy, at: command.now } }];
    case 'give_ai_triage_feedback':
      return giveAiTriageFeedback(command, state);
    default:
      return assertNever(command);
  }
}

function openCase(c: Cmd<'open_case'>, state: CaseState): CaseEvent[] {
  if (state.exists) throw conflict('case_exists', 'case already exists', { case_id: state.id });
  return [
    {
      type: 'case.opened',
      data: {
        case_id: c.caseId,
        key: `${c.keyPrefix}-${c.number}`,
        number: c.number,
        title: c.title,
        description: c.description,
        severity: c.severity,
        tags: [...new Set(c.tags)],
        status: c.initialStatus,
        team: c.team,
        private: c.private,
        correlation_key: c.correlationKey,
        opened_at: c.now,
        opened_by: c.actor?.email ?? null,
        opened_by_id: c.actor?.userId ?? null,
      },
    },
  ];
}

function applyTemplate(c: Cmd<'apply_template'>, s: Existing): CaseEvent[] {
  if (c.closedStatuses.has(s.status)) throw conflict('case_closed', 'a template cannot be applied to a closed case', { case_id: s.id, status: s.status });
  const added = c.tasks.map((t) => ({ task_id: t.taskId, phase: t.phase, title: t.title }));
  const events: CaseEvent[] = [{ type: 'case.template_applied', data: { case_id: s.id, template_id: c.templateId, added, skipped: c.skipped, at: c.now } }];
  if (c.sla !== null && s.slaPolicy === null) {
    events.push({ type: 'case.sla_policy_applied', data: { case_id: s.id, template_id: c.templateId, ...c.sla, at: c.now } });
  }
  return events;
}

function giveAiTriageFeedback(c: Cmd<'give_ai_triage_feedback'>, s: Existing): CaseEvent[] {
  if (s.aiVerdict === null) throw conflict('ai_triage_missing', 'the case has no AI triage verdict to give feedback on', { case_id: s.id });
  return [
    {
      type: 'case.ai_triage_feedback',
      data: {
        case_id: s.id,
        analyst_id: c.actor.userId,
        analyst_email: c.actor.email,
        analyst_verdict: c.verdict,
        note: c.note,
        ai_verdict: s.aiVerdict as TriageVerdict,
        at: c.now,
      },
    },
  ];
}

/** 409 `case_already_merged`: what a merged case refuses, since it only points at its target now. */
function refuseMerged(s: Existing): void {
  if (s.mergedInto !== null) {
    throw conflict('case_already_merged', 'the case was merged into another case', { case_id: s.id, merged_into: s.mergedInto });
  }
}

function mergeInto(c: Cmd<'merge_into'>, s: Existing): CaseEvent[] {
  if (s.id === c.targetId) throw unprocessable('case_merge_self', 'a case cannot be merged into itself', { case_id: s.id });
  if (s.mergedInto === c.targetId) return [];
  refuseMerged(s);
  return [
    ...changeStatus({ type: 'change_status', status: c.mergedStatus, note: `merged into ${c.targetKey}`, now: c.now }, s),
    { type: 'case.merged', data: { case_id: s.id, into_case_id: c.targetId, into_key: c.targetKey, reason: c.reason, at: c.now } },
  ];
}

function receiveMerge(c: Cmd<'receive_merge'>, s: Existing): CaseEvent[] {
  refuseMerged(s);
  if (c.sources.length === 0) return [];
  const at = c.now;
  return [
    { type: 'case.merge_received', data: { case_id: s.id, sources: c.sources, reason: c.reason, at } },
    ...c.copies.comments.map(
      (m): CaseEvent => ({
        type: 'case.comment_added',
        data: { case_id: s.id, comment_id: m.commentId, body: m.body, author_id: m.authorId, author_email: m.authorEmail, merged_from: m.mergedFrom, at },
      }),
    ),
    ...c.copies.attachments.map(
      (a): CaseEvent => ({
        type: 'case.attachment_added',
        data: {
          case_id: s.id,
          attachment_id: a.attachmentId,
          filename: a.filename,
          content_type: a.contentType,
          size: a.size,
          sha256: a.sha256,
          uploaded_by: a.uploadedBy,
          merged_from: a.mergedFrom,
          at,
        },
      }),
    ),
    ...c.copies.pins.map(
      (p): CaseEvent => ({
        type: 'case.evidence_pinned',
        data: { case_id: s.id, pin_id: p.pinId, kind: p.kind, ref_id: p.refId, url: p.url, note: p.note, pinned_by: p.pinnedBy, merged_from: p.mergedFrom, at },
      }),
    ),
  ];
}

function appendAlert(c: Cmd<'append_alert'>, s: Existing): CaseEvent[] {
  refuseMerged(s);
  return [
    {
      type: 'case.alert_appended',
      data: { case_id: s.id, alert_id: c.alertId, title: c.title, severity: c.severity, correlated: c.correlated, at: c.now },
    },
  ];
}

function changeStatus(c: Cmd<'change_status'>, s: Existing): CaseEvent[] {
  if (c.status === s.status) return [];
  refuseMerged(s);
  const required = c.fields === undefined ? [] : requiredFieldNames(c.fields.definitions, s.team, c.status, c.fields.closedStatuses);
  const missing = required.find((name) => s.customFields[name] === undefined);
  if (missing !== undefined) {
    throw unprocessable('custom_field_required', `custom field ${missing} needs a value before the case moves to ${c.status}`, {
      field: missing,
      status: c.status,
    });
  }
  return [
    {
      type: 'case.status_changed',
      data: {
        case_id: s.id,
        from: s.status,
        to: c.status,
        note: c.note,
        ...(c.viaTicketLink !== undefined && { via_ticket_link: c.viaTicketLink }),
        at: c.now,
      },
    },
  ];
}

function assign(c: Cmd<'assign'>, s: Existing): CaseEvent[] {
  if (c.ownerId === s.ownerId) return [];
  return [
    {
      type: 'case.assigned',
      data: { case_id: s.id, owner_id: c.ownerId, owner_email: c.ownerEmail, previous_owner_id: s.ownerId, at: c.now },
    },
  ];
}

/** Idempotent: a second acknowledgement returns no event, so the first stamp stays. */
function acknowledge(c: Cmd<'acknowledge'>, s: Existing): CaseEvent[] {
  if (s.acknowledgedAt !== null) return [];
  if (s.status === 'closed') {
    throw unprocessable('case_closed_unacknowledged', 'a closed case that was never acknowledged cannot be acknowledged', {
      case_id: s.id,
    });
  }
  return [
    {
      type: 'case.acknowledged',
      data: {
        case_id: s.id,
        acknowledged_at: c.now,
        acknowledged_by: c.actor.email ?? c.actor.userId ?? (c.via ? `${c.via.pager}:${c.via.agent ?? 'unknown'}` : 'unknown'),
        by_user_id: c.actor.userId,
        via: c.via,
      },
    },
  ];
}

function addComment(c: Cmd<'add_comment'>, s: Existing): CaseEvent[] {
  return [
    {
      type: 'case.comment_added',
      data: {
        case_id: s.id,
        comment_id: c.commentId,
        body: c.body,
        author_id: c.actor.userId,
        author_email: c.actor.email,
        mentions: c.mentions,
        at: c.now,
      },
    },
  ];
}

/** Soft delete by the author or an admin of the case's team; a deleted or unknown comment is 404. */
function deleteComment(c: Cmd<'delete_comment'>, s: Existing): CaseEvent[] {
  const comment = s.comments[c.commentId];
  if (!comment || comment.deleted) throw notFound('comment_not_found', 'comment not found', { comment_id: c.commentId });
  const isAuthor = comment.authorId !== null && comment.authorId === c.actor.userId;
  if (!isAuthor && !c.actorIsAdmin) {
    throw new DomainError('forbidden', 403, 'only the author or an admin of the case team may delete a comment', { comment_id: c.commentId });
  }
  return [{ type: 'case.comment_deleted', data: { case_id: s.id, comment_id: c.commentId, deleted_by: c.actor.email ?? c.actor.userId, at: c.now } }];
}

function addAttachment(c: Cmd<'add_attachment'>, s: Existing): CaseEvent[] {
  const { attachmentId, filename, contentType, size, sha256, actor, now } = c;
  return [
    {
      type: 'case.attachment_added',
      data: {
        case_id: s.id,
        attachment_id: attachmentId,
        filename,
        content_type: contentType,
        size,
        sha256,
        uploaded_by: actor.email ?? actor.userId,
        at: now,
      },
    },
  ];
}

function pinEvidence(c: Cmd<'pin_evidence'>, s: Existing): CaseEvent[] {
  const { pinId, kind, refId, url, note, actor, now } = c;
  return [
    {
      type: 'case.evidence_pinned',
      data: { case_id: s.id, pin_id: pinId, kind, ref_id: refId, url, note, pinned_by: actor.email ?? actor.userId, at: now },
    },
  ];
}

/**
 * Records only what really changes: `case.updated` for fields,
 * `case.attack_techniques_updated` with `added`/`removed` when the technique set moves,
 * and `case.custom_fields_set` with the custom fields whose value changes.
 * A no-op update yields no event.
 */
function updateCase(c: Cmd<'update_case'>, s: Existing): CaseEvent[] {
  const changes: CaseChanges = {};
  if (c.changes.title !== undefined && c.changes.title !== s.title) changes.title = c.changes.title;
  if (c.changes.description !== undefined && c.changes.description !== s.description) changes.description = c.changes.description;
  if (c.changes.severity !== undefined && c.changes.severity !== s.severity) changes.severity = c.changes.severity;
  if (c.changes.private !== undefined && c.changes.private !== s.private) changes.private = c.changes.private;
  if (c.changes.tags !== undefined) {
    const tags = [...new Set(c.changes.tags)];
    if (tags.join('\u0000') !== s.tags.join('\u0000')) changes.tags = tags;
  }
  const events: CaseEvent[] = [];
  if (Object.keys(changes).length > 0) events.push({ type: 'case.updated', data: { case_id: s.id, changes, at: c.now } });
  if (c.attackTechniques !== undefined) {
    const next = [...new Set(c.attackTechniques)];
    const added = next.filter((t) => !s.attackTechniques.includes(t));
    const removed = s.attackTechniques.filter((t) => !next.includes(t));
    if (added.length > 0 || removed.length > 0) {
      events.push({ type: 'case.attack_techniques_updated', data: { case_id: s.id, added, removed, attack_techniques: next, at: c.now } });
    }
  }
  // Only the custom fields whose value really changes are recorded.
  const fields = Object.entries(c.customFields ?? {}).filter(([name, value]) => JSON.stringify(s.customFields[name] ?? null) !== JSON.stringify(value));
  if (fields.length > 0) events.push({ type: 'case.custom_fields_set', data: { case_id: s.id, values: Object.fromEntries(fields), at: c.now } });
  return events;
}

/**
 * The events of `case.updated`, `case.status_changed` and `case.comment_added` a runbook
 * step asks for, each only on a real change (a comment always is one). Tags are merged
 * into the stream's own, so a run that lost a race to another edit keeps both.
 */
function runbookUpdate(c: Cmd<'runbook_update'>, s: Existing): CaseEvent[] {
  const { severities, statuses } = c.vocabulary;
  const severity = c.changes.severity;
  if (severity !== undefined && !severities.includes(severity)) {
    throw unprocessable('case_severity_invalid', `severity must be one of ${severities.join(', ')}`, { severity });
  }
  if (c.status !== null && !statuses.includes(c.status)) {
    throw unprocessable('case_status_invalid', `status must be one of ${statuses.join(', ')}`, { status: c.status });
  }
  const tags = c.tagsAdd.length > 0 ? { tags: [...s.tags, ...c.tagsAdd] } : {};
  const { now, actor } = c;
  return [
    ...updateCase({ type: 'update_case', changes: { ...c.changes, ...tags }, now }, s),
    ...(c.status === null
      ? []
      : changeStatus({ type: 'change_status', status: c.status, note: null, ...(c.fields !== undefined && { fields: c.fields }), now }, s)),
    ...(c.comment === null ? [] : addComment({ type: 'add_comment', ...c.comment, actor, now }, s)),
  ];
}
