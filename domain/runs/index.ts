/** The Run aggregate as a decider (docs/architecture.md "Habits" 1); one stream per run, `run-<id>`. */
import type { Decider } from '../shared/messages.ts';
import type { RunCommand } from './commands.ts';
import { decideRun } from './decide.ts';
import type { RunEvent } from './events.ts';
import { evolveRun, initialRunState, type RunState } from './state.ts';

export const runDecider: Decider<RunCommand, RunEvent, RunState> = {
  initialState: initialRunState,
  evolve: evolveRun,
  decide: decideRun,
};

export type { RunCommand } from './commands.ts';
export type { ActionLogRow, GateReason, RunEvent, RunOutcome, RunQueued, StepStatus, TriggerType } from './events.ts';
export { ADMIN_GATE_ROLES, finishedStatuses, RISK_GATE_ROLES, type RunState, type StepApproval } from './state.ts';
export { gateAccepts } from './decide.ts';
