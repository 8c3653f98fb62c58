/**
 * Case work (SPEC.md "Cases", "Alerts", "Runs"): the case vocabulary and permission
 * matrix of this install, the case commands with advisory AI triage, ticket mirroring,
 * the case templates, alert intake and run commands: what the API and the worker share.
 */
import { createCaseTriage, type CaseTriage } from '../../adapters/ai/case-triage.ts';
import { loadCaseTemplates, type CaseTemplateCatalog } from '../../adapters/case-templates/catalog.ts';
import { caseConfigFrom, type CaseConfig } from '../../adapters/commands/case-config.ts';
import { createCaseCommands, type CaseCommands } from '../../adapters/commands/cases.ts';
import { createCustomFieldStore, type CustomFieldStore } from '../../adapters/custom-fields/store.ts';
import { createAlertIntake, type AlertIntake } from '../../adapters/commands/intake.ts';
import { createRunCommands, type RunCommands } from '../../adapters/commands/runs.ts';
import { createTicketMirror, type TicketMirror } from '../../adapters/commands/ticket-mirror.ts';
import { parsePermissionMatrix, type PermissionMatrix } from '../../adapters/identity/permissions.ts';
import type { Automation } from './automation.ts';
import type { Core } from './core.ts';

export type CaseWork = {
  caseConfig: CaseConfig;
  permissions: PermissionMatrix;
  cases: CaseCommands;
  customFields: CustomFieldStore;
  caseTriage: CaseTriage;
  ticketMirror: TicketMirror;
  caseTemplates: CaseTemplateCatalog;
  intake: AlertIntake;
  runs: RunCommands;
};

/** Builds the case commands; logs the case templates loaded and refused. Throws when SVC_PERMISSIONS_JSON does not parse. */
export function createCaseWork(core: Core, automation: Pick<Automation, 'connections' | 'runbooks' | 'triageAssessor'>): CaseWork {
  const { config, log, db, store, ids, now, audit } = core;
  const { connections, runbooks } = automation;
  const caseConfig = caseConfigFrom(config);
  const permissions = parsePermissionMatrix(config.permissionsJson);
  const customFields = createCustomFieldStore(db, { ids, now, closedStatuses: config.closedStatuses });
  const cases = createCaseCommands({ store, db, config: caseConfig, ids, now, permissions, audit, fieldRules: customFields.rules });
  const ticketMirror = createTicketMirror({
    store,
    db,
    cases,
    audit,
    caseConfig,
    inboundStatusMap: async (name) => ((await connections.configByName(name))?.inbound_status_map ?? {}) as Record<string, string>,
    ids,
    now,
  });
  const { catalog: caseTemplates, refused: refusedTemplates } = loadCaseTemplates(config.caseTemplatesDir);
  log.info({ templates: caseTemplates.list().map((t) => t.id) }, 'case templates loaded');
  for (const refused of refusedTemplates) log.warn({ file: refused.file, errors: refused.errors }, 'case template file refused');
  return {
    caseConfig,
    permissions,
    cases,
    customFields,
    caseTriage: createCaseTriage({ assessor: automation.triageAssessor, cases, audit }),
    ticketMirror,
    caseTemplates,
    intake: createAlertIntake({ store, db, config: caseConfig, alertRunbooks: runbooks.alertRunbooks, ids, now, cacheEntries: config.intakeCacheEntries }),
    runs: createRunCommands({ store, runbook: runbooks.get, ids, now }),
  };
}
