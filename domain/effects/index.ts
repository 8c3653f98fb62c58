/** The Effect aggregate as a decider (docs/architecture.md "Habits" 1); one stream per effect, `effect-<uuid>`. */
import type { Decider } from '../shared/messages.ts';
import type { EffectCommand } from './commands.ts';
import { decideEffect } from './decide.ts';
import type { EffectEvent } from './events.ts';
import { evolveEffect, initialEffectState, type EffectState } from './state.ts';

export const effectDecider: Decider<EffectCommand, EffectEvent, EffectState> = {
  initialState: initialEffectState,
  evolve: evolveEffect,
  decide: decideEffect,
};

export type { EffectCommand, EffectOrigin } from './commands.ts';
export type { EffectEvent } from './events.ts';
export { effectEventTypes } from './events.ts';
export type { EffectState, EffectStatus } from './state.ts';
