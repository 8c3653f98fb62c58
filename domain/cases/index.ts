/** The Case aggregate as a decider (docs/architecture.md "Habits" 1). */
import type { Decider } from '../shared/messages.ts';
import type { CaseCommand } from './commands.ts';
import { decideCase } from './decide.ts';
import type { CaseEvent } from './events.ts';
import { evolveCase, initialCaseState, type CaseState } from './state.ts';

export const caseDecider: Decider<CaseCommand, CaseEvent, CaseState> = {
  initialState: initialCaseState,
  evolve: evolveCase,
  decide: decideCase,
};

export type { CaseCommand, Actor } from './commands.ts';
export type { CaseEvent } from './events.ts';
export { caseEventTypes } from './events.ts';
export type { CaseState } from './state.ts';
