/**
 * Case events (SPEC.md "Case", "Case acknowledgement"; issue: cases core).
 * Past tense, with ids and timestamps (ISO 8601) in their data.
 */
import type { TriageRecord, TriageVerdict } from '../ai/triage.ts';
import type { CustomFieldValue } from '../custom-fields/fields.ts';
import type { Event } from '../shared/messages.ts';
import type { EvidenceKind } from './evidence.ts';
import type { CommentMentions } from './mentions.ts';

export type CaseOpened = Event<
  'case.opened',
  {
    case_id: string;
    key: string;
    number: number;
    title: string;
    description: string | null;
    severity: string;
    tags: string[];
    status: string;
    team: string | null;
    /** Visible only to its members (creator, owner) and admins of its team (SPEC.md "Case"). */
    private: boolean;
    correlation_key: string | null;
    opened_at: string;
    opened_by: string | null;
    opened_by_id: string | null;
  }
>;
export type CaseAlertAppended = Event<
  'case.alert_appended',
  { case_id: string; alert_id: string; title: string; severity: string; correlated: boolean; at: string }
>;
/** An alert taken out of the case (unlinked, or moved to another case). */
export type CaseAlertRemoved = Event<'case.alert_removed', { case_id: string; alert_id: string; at: string }>;
export type CaseStatusChanged = Event<
  'case.status_changed',
  {
    case_id: string;
    from: string;
    to: string;
    note: string | null;
    /** The ticket link whose remote status caused the change (ticket mirroring), so it is not mirrored back to it; absent otherwise. */
    via_ticket_link?: string;
    at: string;
  }
>;
export type CaseAssigned = Event<
  'case.assigned',
  { case_id: string; owner_id: string | null; owner_email: string | null; previous_owner_id: string | null; at: string }
>;
/** A pager and its acknowledging agent (a name or email as the pager sent it). */
export type PageVia = { pager: Pager; agent: string | null };

export type CaseAcknowledged = Event<
  'case.acknowledged',
  {
    case_id: string;
    acknowledged_at: string;
    acknowledged_by: string;
    by_user_id: string | null;
    /** Set when a page acknowledgement stamped it; absent on events recorded before pages existed. */
    via?: PageVia | null;
  }
>;

/** The paging products (SPEC.md neutral names). */
export const pagers = ['pager_a', 'pager_b'] as const;
export type Pager = (typeof pagers)[number];

/**
 * A page sent for the case (SPEC.md "Webhook intake": "the page is linked to the case"):
 * `key` is the pager's de-duplication key (`dedup_key` / `alias`) an acknowledgement
 * webhook names.
 */
export type CasePageLinked = Event<
  'case.page_linked',
  { case_id: string; pager: Pager; key: string; connection: string; run_id: string | null; step_id: string | null; at: string }
>;
export type CaseCommentAdded = Event<
  'case.comment_added',
  {
    case_id: string;
    comment_id: string;
    body: string;
    author_id: string | null;
    author_email: string | null;
    /** Absent on comments recorded before mentions were resolved. */
    mentions?: CommentMentions;
    /** A copy a merge brought from another case: that case, its comment, and when it was written there; absent otherwise. */
    merged_from?: MergedFrom;
    at: string;
  }
>;
/** Where a merge copied an item from: the source case, the item's id there, and when it was made there (ISO 8601). */
export type MergedFrom = { case_id: string; id: string; at: string };
export type CaseCommentDeleted = Event<'case.comment_deleted', { case_id: string; comment_id: string; deleted_by: string | null; at: string }>;
export type CaseChanges = { title?: string; description?: string | null; severity?: string; tags?: string[]; private?: boolean };
export type CaseUpdated = Event<'case.updated', { case_id: string; changes: CaseChanges; at: string }>;
/** Only on a real change; `attack_techniques` is the list after it (SPEC.md "Other case moves"). */
export type CaseAttackTechniquesUpdated = Event<
  'case.attack_techniques_updated',
  { case_id: string; added: string[]; removed: string[]; attack_techniques: string[]; at: string }
>;

/**
 * A file stored with the case (SPEC.md "Case sub-resources": Attachment). `size` is in
 * bytes and `sha256` lower-case hex, both computed by the server; the file store's key
 * derives from `sha256`. `filename` is display metadata only, already sanitized.
 */
export type CaseAttachmentAdded = Event<
  'case.attachment_added',
  {
    case_id: string;
    attachment_id: string;
    filename: string;
    content_type: string;
    size: number;
    sha256: string;
    uploaded_by: string | null;
    /** A copy a merge brought from another case (the same stored file); absent otherwise. */
    merged_from?: MergedFrom;
    at: string;
  }
>;
/**
 * An evidence pin (SPEC.md "Case sub-resources": Evidence pin): `ref_id` names an item
 * of this case for every kind but `link`, which carries `url` instead.
 */
export type CaseEvidencePinned = Event<
  'case.evidence_pinned',
  {
    case_id: string;
    pin_id: string;
    kind: EvidenceKind;
    ref_id: string | null;
    url: string | null;
    note: string;
    pinned_by: string | null;
    /** A copy a merge brought from another case (its `ref_id` names this case's copy of the item); absent otherwise. */
    merged_from?: MergedFrom;
    at: string;
  }
>;

/**
 * A case template was applied (SPEC.md "Other case moves"): the tasks it added (their
 * `task.created` events are in the same atomic append) and the (phase, title) pairs it
 * skipped because the case had them.
 */
export type CaseTemplateApplied = Event<
  'case.template_applied',
  { case_id: string; template_id: string; added: { task_id: string; phase: string; title: string }[]; skipped: { phase: string; title: string }[]; at: string }
>;
/** The case's SLA policy, set once from a template; its targets override the per-severity defaults. */
export type CaseSlaPolicyApplied = Event<
  'case.sla_policy_applied',
  { case_id: string; template_id: string; ack_minutes: number | null; resolve_minutes: number | null; at: string }
>;

/**
 * An advisory AI triage recorded on the case (SPEC.md "Case sub-resources": AI triage
 * record). Named without a past-tense suffix because SPEC.md names its timeline kind
 * `ai_triage`. Advice only: it changes no status, severity or owner.
 */
export type CaseAiTriage = Event<'case.ai_triage', { case_id: string; record: TriageRecord; requested_by: string | null; at: string }>;
/** One analyst's judgement of the AI verdict (SPEC.md "AI triage feedback"); `ai_verdict` is the verdict it judged. */
export type CaseAiTriageFeedback = Event<
  'case.ai_triage_feedback',
  {
    case_id: string;
    analyst_id: string;
    analyst_email: string | null;
    analyst_verdict: TriageVerdict;
    note: string | null;
    ai_verdict: TriageVerdict;
    at: string;
  }
>;

/**
 * The case was merged into another (issue 50 "Merge and split"): it now reads as a
 * pointer to `into_case_id`, refuses new alerts and status changes, and keeps its own
 * timeline. A `case.status_changed` to the merged status precedes it in the same append.
 */
export type CaseMerged = Event<'case.merged', { case_id: string; into_case_id: string; into_key: string; reason: string; at: string }>;
/**
 * Cases were merged into this one: `sources` are the cases merged by this request and
 * every case merged into them before, so the list is the whole family. The copies of
 * their comments, attachments and pins follow in the same append.
 */
export type CaseMergeReceived = Event<'case.merge_received', { case_id: string; sources: { case_id: string; key: string }[]; reason: string; at: string }>;

/**
 * Custom field values set on the case (docs/configuration.md "Custom fields"): each named
 * field takes its value, null clears it; fields not named keep theirs.
 */
export type CaseCustomFieldsSet = Event<'case.custom_fields_set', { case_id: string; values: Record<string, CustomFieldValue | null>; at: string }>;

export type CaseEvent =
  | CaseOpened
  | CaseCustomFieldsSet
  | CaseMerged
  | CaseMergeReceived
  | CaseAlertAppended
  | CaseAlertRemoved
  | CaseStatusChanged
  | CaseAssigned
  | CaseAcknowledged
  | CaseCommentAdded
  | CaseCommentDeleted
  | CaseUpdated
  | CaseAttackTechniquesUpdated
  | CaseAttachmentAdded
  | CaseEvidencePinned
  | CaseTemplateApplied
  | CaseSlaPolicyApplied
  | CasePageLinked
  | CaseAiTriage
  | CaseAiTriageFeedback;

export const caseEventTypes: ReadonlySet<string> = new Set<CaseEvent['type']>([
  'case.opened',
  'case.merged',
  'case.merge_received',
  'case.custom_fields_set',
  'case.alert_appended',
  'case.alert_removed',
  'case.status_changed',
  'case.assigned',
  'case.acknowledged',
  'case.comment_added',
  'case.comment_deleted',
  'case.updated',
  'case.attack_techniques_updated',
  'case.attachment_added',
  'case.evidence_pinned',
  'case.template_applied',
  'case.sla_policy_applied',
  'case.page_linked',
  'case.ai_triage',
  'case.ai_triage_feedback',
]);
