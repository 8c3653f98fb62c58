/**
 * Evidence pins (SPEC.md "Case sub-resources": Evidence pin references a timeline item,
 * observable, attachment, action-log row or link; a note is required).
 *
 * The kinds and what `ref_id` names for each (docs/configuration.md "Attachments and
 * evidence"): `timeline` a timeline row id of the case, `observable` a present observable
 * of the case, `attachment` an attachment of the case, `action_log` the `index` of an
 * action-log row of a run bound to the case; `link` takes an absolute http(s) `url`
 * and no `ref_id`. Whether the referenced item exists is checked against the read
 * models by the caller; this module holds the rules that need no lookup.
 */
import type { ValidationIssue } from '../shared/errors.ts';

export const evidenceKinds = ['timeline', 'observable', 'attachment', 'action_log', 'link'] as const;
export type EvidenceKind = (typeof evidenceKinds)[number];

/** Longest pin note, characters after trimming. */
export const EVIDENCE_NOTE_MAX = 2000;
/** Longest `url` of a `link` pin, characters. */
export const EVIDENCE_URL_MAX = 2048;

/**
 * The absolute http(s) URL `raw` names, normalized by the WHATWG URL parser, or null
 * when it is relative, of another scheme, hostless, longer than EVIDENCE_URL_MAX or
 * not a URL at all.
 */
export function evidenceUrl(raw: string): string | null {
  if (raw.length > EVIDENCE_URL_MAX || !URL.canParse(raw)) return null;
  const url = new URL(raw);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
  return url.href;
}

/**
 * What is wrong with the combination of `kind`, `ref_id` and `url` of a pin request,
 * as 422 issues at `body.ref_id` / `body.url`: a `link` needs a valid `url` and no
 * `ref_id`; every other kind needs a `ref_id` and no `url`.
 */
export function evidenceShapeIssues(pin: { kind: EvidenceKind; ref_id?: string | undefined; url?: string | undefined }): ValidationIssue[] {
  const issue = (field: string, msg: string, type = 'value_error'): ValidationIssue => ({ loc: ['body', field], msg, type });
  if (pin.kind === 'link') {
    const issues: ValidationIssue[] = [];
    if (pin.ref_id !== undefined) issues.push(issue('ref_id', 'a link pin takes url, not ref_id'));
    if (pin.url === undefined) issues.push(issue('url', 'a link pin requires url', 'missing'));
    else if (evidenceUrl(pin.url) === null) issues.push(issue('url', 'must be an absolute http or https URL'));
    return issues;
  }
  const issues: ValidationIssue[] = [];
  if (pin.ref_id === undefined) issues.push(issue('ref_id', `a ${pin.kind} pin requires ref_id`, 'missing'));
  if (pin.url !== undefined) issues.push(issue('url', `a ${pin.kind} pin takes ref_id, not url`));
  return issues;
}
