/**
 * Every path the console's router serves, as react-router patterns below
 * SVC_PUBLIC_PREFIX: app.tsx routes exactly these (its page table is keyed by them), and
 * any other path is "There is no such page". Kept apart from the pages so what links into
 * the console, the suite shell's nav (`GET /peer/v1/nav`, adapters/http/peer-nav.ts) above
 * all, can be held to it without a browser (tests/unit/peer/nav.test.ts).
 */
export const consolePaths = [
  '/',
  '/alerts',
  '/alerts/:id',
  '/cases',
  '/cases/:id',
  '/runbooks',
  '/runbooks/new',
  '/runbooks/:slug',
  '/runbooks/:slug/edit',
  '/runs',
  '/effects',
  '/runs/:id',
  '/approvals',
  '/metrics',
  '/notifications',
  '/search',
  '/settings/connections',
  '/settings/packs',
  '/settings/policy',
  '/settings/webhook-sources',
  '/settings/custom-actions',
  '/settings/custom-actions/new',
  '/settings/custom-actions/:id',
  '/settings/custom-fields',
  '/settings/audit',
  '/settings/retention',
  '/settings/ai',
] as const;

/** One of the console's route patterns. */
export type ConsolePath = (typeof consolePaths)[number];
