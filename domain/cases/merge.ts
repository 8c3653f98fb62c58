/**
 * The rules of a case merge that need no lookup (docs/configuration.md "Case merge and
 * split"; issue 50): who may read a case must not grow by merging it, and where an
 * evidence pin's reference points once its item was copied or moved.
 */
import type { EvidenceKind } from './evidence.ts';

/** Who can see a case: its team (null: org-wide), whether it is private, and its members (creator, owner: user ids). */
export type CaseReach = { team: string | null; private: boolean; members: readonly string[] };

/**
 * True when merging `source` into `target` would show the source's content to someone
 * who cannot see the source now: a team's case into an org-wide case or another team's,
 * or a private case into one that is not private or has a member the source lacks. A
 * merge the rule refuses is 409 `case_merge_widens_access`; merging an org-wide case
 * into a team's, or a team's open case into a private one, narrows and is allowed.
 */
export function mergeWidensAccess(source: CaseReach, target: CaseReach): boolean {
  if (source.team !== null && source.team !== target.team) return true;
  if (!source.private) return false;
  return !target.private || target.members.some((m) => !source.members.includes(m));
}

/** Old id to new id, for the items a merge copies (attachments) or moves under a new id (observables). */
export type RefMaps = { observable: ReadonlyMap<string, string>; attachment: ReadonlyMap<string, string> };

/**
 * The `ref_id` a pin copied into the target carries: an observable or attachment pin
 * names the target's copy of its item; timeline and action-log pins keep theirs, since
 * the target reads the timelines and runs of the cases merged into it; an item the maps
 * do not know (removed before the merge) keeps its old id and reads as not found.
 */
export function mergedPinRef(kind: EvidenceKind, refId: string | null, maps: RefMaps): string | null {
  if (refId === null) return null;
  if (kind === 'observable') return maps.observable.get(refId) ?? refId;
  if (kind === 'attachment') return maps.attachment.get(refId) ?? refId;
  return refId;
}
