/** A case state for decider tests: opened by the real `open_case` decision, with fields a test chooses. */
import { caseDecider, type CaseCommand, type CaseState } from '../../domain/cases/index.ts';

type Opening = Partial<Omit<Extract<CaseCommand, { type: 'open_case' }>, 'type'>>;

/** The state after opening case `c1` ("Phishing", high, tag `mail`, team `soc`, status `new`) with `overrides` on top. */
export function openedCase(overrides: Opening = {}): CaseState {
  const command: CaseCommand = {
    type: 'open_case',
    caseId: 'c1',
    number: 1,
    keyPrefix: 'SVC',
    title: 'Phishing',
    description: null,
    severity: 'high',
    tags: ['mail'],
    initialStatus: 'new',
    team: 'soc',
    private: false,
    correlationKey: null,
    actor: { userId: 'u1', email: 'ana@example.com' },
    now: '2026-11-22T10:00:00.000Z',
    ...overrides,
  };
  return caseDecider.decide(command, caseDecider.initialState()).reduce(caseDecider.evolve, caseDecider.initialState());
}
