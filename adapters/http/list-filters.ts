/**
 * The filter parameters of the case list (`GET /cases`) and the alert inbox (`GET /alerts`),
 * apart from their routes so a saved view's query is checked by the very schema that
 * checks the list's URL (views.routes.ts), and `?view=` answers what that URL answers.
 */
import * as v from 'valibot';
import type { CaseConfig } from '../commands/case-config.ts';

/** `GET /cases` filters: status and severity from the install's vocabulary, owner, a key or title search, an exact key. */
export function caseListFilters(cfg: Pick<CaseConfig, 'statuses' | 'severities'>) {
  return {
    status: v.optional(v.picklist(cfg.statuses as string[], `must be one of ${cfg.statuses.join(', ')}`)),
    severity: v.optional(v.picklist(cfg.severities as string[], `must be one of ${cfg.severities.join(', ')}`)),
    owner: v.optional(v.string()),
    search: v.optional(v.pipe(v.string(), v.maxLength(200))),
    key: v.optional(v.pipe(v.string(), v.maxLength(200))),
  };
}

/** `GET /alerts` filters: status, severity, source. */
export const alertListFilters = {
  status: v.optional(v.picklist(['new', 'linked', 'dismissed'])),
  severity: v.optional(v.string()),
  source: v.optional(v.string()),
};
