/**
 * The case edit form's rules, pure (tests/unit/console/edit-fields.test.ts): what a typed
 * ATT&CK technique id must look like (SPEC.md "Case": `T<digits>` or `T<digits>.<digits>`,
 * upper-cased, at most 50), what a tag may be, how a typed tag or technique joins its list, and which fields
 * of the form differ from the case, so `PUT /cases/<id>` sends only those.
 */
import type { Case, CaseUpdate } from '../api-shapes.ts';

/** Most techniques a case holds (SPEC.md "Limits"). */
export const MAX_TECHNIQUES = 50;
const TECHNIQUE = /^T\d+(\.\d+)?$/;

/** `text` as a technique id (trimmed, upper-cased), or the reason it is not one. */
export function parseTechnique(text: string): { id: string } | { problem: string } {
  const id = text.trim().toUpperCase();
  if (id === '') return { problem: 'Type a technique id.' };
  if (!TECHNIQUE.test(id)) return { problem: `${text.trim()} is not a technique id like T1059 or T1059.001.` };
  return { id };
}

/** Longest tag, characters (the API's limit on `tags`). */
const MAX_TAG_LENGTH = 100;

/** `text` as a tag (trimmed), or the reason it is not one. */
export function parseTag(text: string): { id: string } | { problem: string } {
  const tag = text.trim();
  if (tag === '') return { problem: 'Type a tag.' };
  if (tag.length > MAX_TAG_LENGTH) return { problem: `A tag is at most ${MAX_TAG_LENGTH} characters.` };
  return { id: tag };
}

/** `list` with `item` at its end, unless it holds it already. */
export const withItem = (list: readonly string[], item: string): string[] => (list.includes(item) ? [...list] : [...list, item]);

/** What the form edits of a case. */
export type CaseFields = { title: string; description: string; severity: string; tags: string[]; attack_techniques: string[] };

/** The form's starting values: the case as it is. */
export const fieldsOf = (value: Case): CaseFields => ({
  title: value.title,
  description: value.description ?? '',
  severity: value.severity,
  tags: [...value.tags],
  attack_techniques: [...value.attack_techniques],
});

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

/**
 * The body of `PUT /cases/<id>`: each field of `form` that differs from `before`, a title
 * trimmed, an emptied description as null; empty when nothing changed.
 */
export function caseChanges(before: CaseFields, form: CaseFields): CaseUpdate {
  const changes: CaseUpdate = {};
  if (form.title.trim() !== before.title) changes.title = form.title.trim();
  if (form.description.trim() !== before.description.trim()) changes.description = form.description.trim() === '' ? null : form.description;
  // The document's severities are this build's defaults; an install's own (SVC_CASE_SEVERITIES,
  // which the form offers) pass the API's check all the same.
  if (form.severity !== before.severity) changes.severity = form.severity as NonNullable<CaseUpdate['severity']>;
  if (!sameList(form.tags, before.tags)) changes.tags = form.tags;
  if (!sameList(form.attack_techniques, before.attack_techniques)) changes.attack_techniques = form.attack_techniques;
  return changes;
}
