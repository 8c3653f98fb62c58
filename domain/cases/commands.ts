/**
 * Case commands. Ids, the case number and the time come in with the command
 * (docs/architecture.md "Habits" 3); status and severity values were checked against configuration
 * by the caller, except in `runbook_update`, which carries the configured lists.
 */
import type { TriageRecord, TriageVerdict } from '../ai/triage.ts';
import type { CustomFieldValue, FieldRules } from '../custom-fields/fields.ts';
import type { CaseChanges, MergedFrom, PageVia, Pager } from './events.ts';
import type { EvidenceKind } from './evidence.ts';
import type { CommentMentions } from './mentions.ts';

export type Actor = { userId: string | null; email: string | null };

export type CaseCommand =
  | {
      type: 'open_case';
      caseId: string;
      number: number;
      keyPrefix: string;
      title: string;
      description: string | null;
      severity: string;
      tags: string[];
      initialStatus: string;
      team: string | null;
      private: boolean;
      correlationKey: string | null;
      actor: Actor | null;
      now: string;
    }
  | { type: 'append_alert'; alertId: string; title: string; severity: string; correlated: boolean; now: string }
  /** The alert stream decides whether the alert is in this case; the case only records it. */
  | { type: 'remove_alert'; alertId: string; now: string }
  /**
   * `fields`: the custom field definitions and closed statuses, read by the caller; the
   * fields that apply to the case and are required for `status` must hold a value
   * (domain/custom-fields/fields.ts `requiredFieldNames`). Absent: nothing is required.
   */
  | { type: 'change_status'; status: string; note: string | null; viaTicketLink?: string; fields?: FieldRules; now: string }
  | { type: 'assign'; ownerId: string | null; ownerEmail: string | null; now: string }
  /** `via`: the page whose acknowledgement webhook this is, else null. */
  | { type: 'acknowledge'; actor: Actor; via: PageVia | null; now: string }
  | { type: 'link_page'; pager: Pager; key: string; connection: string; runId: string | null; stepId: string | null; now: string }
  | { type: 'add_comment'; commentId: string; body: string; actor: Actor; mentions: CommentMentions; now: string }
  /** `actorIsAdmin`: the actor is an admin of the case's team (or the realm). */
  | { type: 'delete_comment'; commentId: string; actor: Actor; actorIsAdmin: boolean; now: string }
  /** `filename` already sanitized; `size` (bytes) and `sha256` (hex) computed from the stored file. */
  | { type: 'add_attachment'; attachmentId: string; filename: string; contentType: string; size: number; sha256: string; actor: Actor; now: string }
  /** The shape rules (evidence.ts) and the reference were checked by the caller. */
  | { type: 'pin_evidence'; pinId: string; kind: EvidenceKind; refId: string | null; url: string | null; note: string; actor: Actor; now: string }
  /**
   * Records a template application: `tasks` are the tasks being added (ids given, their
   * streams written in the same append), `skipped` those the case had; the SLA policy is
   * applied only when the case has none. Refused on a case whose status is in `closedStatuses`.
   */
  | {
      type: 'apply_template';
      templateId: string;
      tasks: { taskId: string; phase: string; title: string }[];
      skipped: { phase: string; title: string }[];
      sla: { ack_minutes: number | null; resolve_minutes: number | null } | null;
      closedStatuses: ReadonlySet<string>;
      now: string;
    }
  /**
   * A runbook's `case.update` step (SPEC.md "Action registry entry"): fields, tags added to
   * the tags of the case as its stream has them (so concurrent runs all keep theirs), a
   * status and a comment, decided together. Its values come from a runbook, not a checked
   * request: a severity or status outside `vocabulary` is refused.
   */
  | {
      type: 'runbook_update';
      changes: { title?: string; description?: string; severity?: string };
      tagsAdd: string[];
      status: string | null;
      /** The custom field rules a move into `status` is checked against. */
      fields?: FieldRules;
      comment: { commentId: string; body: string; mentions: CommentMentions } | null;
      actor: Actor;
      vocabulary: { severities: readonly string[]; statuses: readonly string[] };
      now: string;
    }
  /**
   * Merges this case into `targetId` (issue 50 "Merge and split"): its status becomes
   * `mergedStatus` and it points at the target. Nothing when it already does; 409
   * `case_already_merged` when it points at another case.
   */
  | { type: 'merge_into'; targetId: string; targetKey: string; mergedStatus: string; reason: string; now: string }
  /**
   * Takes in the cases merged into this one (`sources`, the whole family) and the copies
   * of their comments, attachments and evidence pins, ids given and references already
   * mapped to this case's copies. 409 `case_already_merged` when this case was merged itself.
   */
  | { type: 'receive_merge'; sources: { case_id: string; key: string }[]; reason: string; copies: MergeCopies; now: string }
  /** An advisory AI triage's record, already checked (domain/ai/triage.ts). */
  | { type: 'record_ai_triage'; record: TriageRecord; requestedBy: string | null; now: string }
  /** An analyst's judgement of the case's current AI verdict; `actor.userId` is set (one row per analyst). */
  | { type: 'give_ai_triage_feedback'; actor: Actor & { userId: string }; verdict: TriageVerdict; note: string | null; now: string }
  | {
      type: 'update_case';
      changes: CaseChanges;
      /** Technique ids already normalized (upper-case, shape-checked); order is kept, duplicates dropped. */
      attackTechniques?: string[];
      /** Custom field values already checked by type against definitions that apply to the case; null clears a field. */
      customFields?: Record<string, CustomFieldValue | null>;
      now: string;
    };

/** What a merge copies into its target case, each item with its new id and where it came from. */
export type MergeCopies = {
  comments: { commentId: string; body: string; authorId: string | null; authorEmail: string | null; mergedFrom: MergedFrom }[];
  attachments: {
    attachmentId: string;
    filename: string;
    contentType: string;
    size: number;
    sha256: string;
    uploadedBy: string | null;
    mergedFrom: MergedFrom;
  }[];
  pins: { pinId: string; kind: EvidenceKind; refId: string | null; url: string | null; note: string; pinnedBy: string | null; mergedFrom: MergedFrom }[];
};
