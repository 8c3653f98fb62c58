/** Live-update references (domain/live/refs.ts): ticket link events update their case; effect events their effect. */
import { describe, expect, it } from 'vitest';
import { liveRefs } from '../../../domain/live/refs.ts';

describe('liveRefs', () => {
  it('turns a ticket link event into an update of its case, with ids only', () => {
    const caseId = '5fe21de7-698b-4d4e-9cfb-b63158050480';
    const refs = liveRefs([
      { streamId: 'ticket-3f0c8a52-5d0e-4b7e-9d67-0f5a3c1e2b4d', type: 'ticket.remote_comment_received', data: { case_id: caseId, text: 'secret content' } },
    ]);
    expect(refs).toEqual([{ type: 'case.updated', case_id: caseId, event: 'ticket.remote_comment_received' }]);
  });

  it('turns the events of an effect into one update of that effect, the last event winning', () => {
    const effectId = '0b7d8c52-5d0e-4b7e-9d67-0f5a3c1e2b4d';
    const stream = `effect-${effectId}`;
    const refs = liveRefs([
      { streamId: stream, type: 'effect.applied', data: { effect_id: effectId, handle: 'rule-1' } },
      { streamId: stream, type: 'effect.reversal_started', data: { effect_id: effectId, reason: 'released' } },
    ]);
    expect(refs).toEqual([{ type: 'effect.updated', effect_id: effectId, event: 'effect.reversal_started' }]);
  });
});
