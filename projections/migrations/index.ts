/**
 * The read models' schema migrations (the event store keeps its own in
 * adapters/event-store/migrations/); applied in name order by runtime/migrate.ts
 * (`svc migrate`, and at every start).
 */
import type { Migration } from 'kysely';
import * as initial from './0001-initial.ts';
import * as caseScope from './0002-case-scope-techniques.ts';
import * as mentions from './0003-mentions-notifications.ts';
import * as observables from './0004-case-observables.ts';
import * as caseTasks from './0005-case-tasks.ts';
import * as attachmentsEvidence from './0007-attachments-evidence.ts';
import * as caseListIndexes from './0009-case-list-indexes.ts';
import * as runGates from './0010-run-gates.ts';
import * as runbookSchedules from './0011-runbook-versions-schedules.ts';
import * as suiteCorrelationIndex from './0012-suite-correlation-index.ts';
import * as caseSlaPolicy from './0013-case-sla-policy.ts';
import * as alertObservables from './0014-alert-observables.ts';
import * as webhookSources from './0018-webhook-sources.ts';
import * as connectionRotation from './0019-connection-rotation.ts';
import * as auditLog from './0021-audit-log.ts';
import * as retention from './0022-retention.ts';
import * as casePages from './0023-case-pages.ts';
import * as caseTickets from './0024-case-tickets.ts';
import * as chatIdentities from './0025-chat-identities.ts';
import * as ticketOutbox from './0026-ticket-outbox.ts';
import * as customActions from './0027-custom-actions.ts';
import * as integrationPacks from './0028-integration-packs.ts';
import * as responsePolicy from './0029-response-policy.ts';
import * as effects from './0030-effects.ts';
import * as chainRowText from './0031-chain-row-text.ts';
import * as orgMilestones from './0032-org-milestones.ts';
import * as mcpIdempotency from './0033-mcp-idempotency.ts';
import * as auditAt from './0034-audit-at.ts';
import * as aiSettings from './0035-ai-settings.ts';
import * as aiTriage from './0036-ai-triage.ts';
import * as runsByRunbook from './0037-runs-by-runbook.ts';
import * as savedViews from './0038-saved-views.ts';
import * as caseMerges from './0039-case-merges.ts';
import * as customFields from './0040-custom-fields.ts';
import * as search from './0041-search.ts';

const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-case-scope-techniques': caseScope,
  '0003-mentions-notifications': mentions,
  '0004-case-observables': observables,
  '0005-case-tasks': caseTasks,
  '0007-attachments-evidence': attachmentsEvidence,
  '0009-case-list-indexes': caseListIndexes,
  '0010-run-gates': runGates,
  '0011-runbook-versions-schedules': runbookSchedules,
  '0012-suite-correlation-index': suiteCorrelationIndex,
  '0013-case-sla-policy': caseSlaPolicy,
  '0014-alert-observables': alertObservables,
  '0018-webhook-sources': webhookSources,
  '0019-connection-rotation': connectionRotation,
  '0021-audit-log': auditLog,
  '0022-retention': retention,
  '0023-case-pages': casePages,
  '0024-case-tickets': caseTickets,
  '0025-chat-identities': chatIdentities,
  '0026-ticket-outbox': ticketOutbox,
  '0027-custom-actions': customActions,
  '0028-integration-packs': integrationPacks,
  '0029-response-policy': responsePolicy,
  '0030-effects': effects,
  '0031-chain-row-text': chainRowText,
  '0032-org-milestones': orgMilestones,
  '0033-mcp-idempotency': mcpIdempotency,
  '0034-audit-at': auditAt,
  '0035-ai-settings': aiSettings,
  '0036-ai-triage': aiTriage,
  '0037-runs-by-runbook': runsByRunbook,
  '0038-saved-views': savedViews,
  '0039-case-merges': caseMerges,
  '0040-custom-fields': customFields,
  '0041-search': search,
};

/** The read models' migrations; runtime/schema-migrations.ts merges in the event store's. */
export const readModelMigrations: Readonly<Record<string, Migration>> = migrations;
