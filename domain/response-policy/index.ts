/** The Response policy aggregate as a decider (docs/architecture.md "Habits" 1); one stream, `response-policy`. */
import type { Decider } from '../shared/messages.ts';
import type { ResponsePolicyCommand } from './commands.ts';
import { decideResponsePolicy } from './decide.ts';
import type { ResponsePolicyEvent } from './events.ts';
import { evolveResponsePolicy, initialResponsePolicyState, type ResponsePolicyState } from './state.ts';

export const responsePolicyDecider: Decider<ResponsePolicyCommand, ResponsePolicyEvent, ResponsePolicyState> = {
  initialState: initialResponsePolicyState,
  evolve: evolveResponsePolicy,
  decide: decideResponsePolicy,
};

export type { ResponsePolicyCommand } from './commands.ts';
export type { ResponsePolicyEvent, ResponsePolicyPublished } from './events.ts';
export { RESPONSE_POLICY_PUBLISHED } from './events.ts';
export type { ResponsePolicyState } from './state.ts';
