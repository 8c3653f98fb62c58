/**
 * What the HTTP routes need from the running service, injected by runtime/boot.ts.
 */
import type { Kysely } from 'kysely';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import type { Database } from '../../projections/database.ts';
import type { AckSlaPolicy } from '../../domain/cases/ack-sla.ts';
import type { ObservableCommands } from '../commands/observables.ts';
import type { CaseAlertCommands } from '../commands/case-alerts.ts';
import type { TaskCommands } from '../commands/tasks.ts';
import type { CaseConfig } from '../commands/case-config.ts';
import type { CaseCommands } from '../commands/cases.ts';
import type { AlertIntake } from '../commands/intake.ts';
import type { RunCommands } from '../commands/runs.ts';
import type { ConnectionStore } from '../connections/store.ts';
import type { Permission, Role } from '../identity/principal.ts';
import type { TokenVerifier } from '../identity/verifier.ts';
import type { UserDirectory } from '../identity/users.ts';
import type { PresenceRoster } from '../presence/roster.ts';

export type RunbookCatalogView = {
  list: () => RunbookDefinition[];
  get: (slug: string) => RunbookDefinition | undefined;
  validate: (yamlText: string) => { loc: (string | number)[]; msg: string }[];
};

export type HttpDeps = {
  db: Kysely<Database>;
  basePath: string;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  detectorBootstrapSecret: string | null;
  caseConfig: CaseConfig;
  /** Acknowledgement targets per severity, seconds (SVC_ACK_SLA_MINUTES). */
  ackSla: AckSlaPolicy;
  /** `GET /cases` counts `total` exactly up to this many cases (SVC_CASE_LIST_TOTAL_CAP). */
  caseListTotalCap: number;
  /** Who views which case (adapters/presence/roster.ts). */
  presence: PresenceRoster;
  /** How often a viewer sends a presence heartbeat, seconds (SVC_PRESENCE_HEARTBEAT_SECONDS). */
  presenceHeartbeatSeconds: number;
  /** The public UI prefix of `href` values (SVC_PUBLIC_PREFIX). */
  publicPrefix: string;
  observables: ObservableCommands;
  caseAlerts: CaseAlertCommands;
  tasks: TaskCommands;
  permissions: Record<Role, Permission[]>;
  verifier: TokenVerifier;
  users: UserDirectory;
  cases: CaseCommands;
  intake: AlertIntake;
  runs: RunCommands;
  runbooks: RunbookCatalogView;
  connections: ConnectionStore;
  /** Read-your-writes: resolves once projections reached `position`. */
  waitFor: (position: number | null) => Promise<void>;
  logError: (error: unknown, context: Record<string, unknown>) => void;
};
