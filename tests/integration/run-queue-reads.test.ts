/**
 * Queueing a manual run (adapters/commands/runs.ts `queueManual`, SPEC.md `POST
 * /cases/<id>/runbooks/<slug>/run`) on the real event store of every engine: the run's
 * stream is new by construction (a fresh id), so it is decided against the empty state
 * without a read, and runs queued at once meet in one append instead of waiting behind a
 * read each. The append's expected version 0 still catches a taken id, whose stream is
 * then read and decided again: nothing is appended twice.
 */
import { describe, expect, it } from 'vitest';
import { createRunCommands } from '../../adapters/commands/runs.ts';
import { parseRunbook, type RunbookCatalog } from '../../domain/runbooks/parse.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import { streams } from '../../domain/shared/streams.ts';
import { countedReads } from '../support/counted-store.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { eventStoreOn } from '../support/event-store-on.ts';

const catalog: RunbookCatalog = { actionProblem: () => null, checkInput: () => [], checkTemplate: () => null, checkCondition: () => null };

function runbookOf(yaml: string): RunbookDefinition {
  const parsed = parseRunbook(yaml, catalog);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.runbook;
}

const runbook = runbookOf(
  ['id: tag-case', 'name: Tag the case', 'trigger:', '  type: manual', 'steps:', '  - id: tag', '    action: case.update', '    with: {}', ''].join('\n'),
);
const caseId = '00000000-0000-4000-8000-000000000001';

describe.each(engines)('queueing a manual run on $name', (engine: TestEngine) => {
  const on = eventStoreOn(engine);

  const queue = (commands: ReturnType<typeof createRunCommands>) =>
    commands.queueManual({ slug: 'tag-case', caseId, caseTrigger: { case_id: caseId }, inputs: {}, dryRun: true, requestedBy: 'analyst@example.com' });

  it("reads no stream, and queues each run as its stream's first event", async () => {
    const spy = countedReads(on.store);
    let n = 0;
    const ids = () => `00000000-0000-4000-8000-1000000000${String(++n).padStart(2, '0')}`;
    const commands = createRunCommands({
      store: spy.store,
      runbook: (slug) => (slug === 'tag-case' ? runbook : undefined),
      ids,
      now: () => new Date('2026-11-29T10:00:00Z'),
    });
    const queued = await Promise.all([queue(commands), queue(commands), queue(commands)]);
    expect(spy.reads()).toBe(0);
    for (const { runId } of queued) {
      const events = await on.store.readStream(streams.run(runId));
      expect(events.map((e) => [e.type, e.streamVersion])).toEqual([['run.queued', 1]]);
      expect(events[0]?.data).toMatchObject({ run_id: runId, case_id: caseId, trigger_type: 'manual', dry_run: true, requested_by: 'analyst@example.com' });
    }
  });

  it('decides again on the stream read afresh when the id is taken, and appends nothing', async () => {
    const taken = '00000000-0000-4000-8000-200000000001';
    const commands = createRunCommands({ store: on.store, runbook: () => runbook, ids: () => taken, now: () => new Date('2026-11-29T10:00:00Z') });
    expect((await queue(commands)).position).not.toBeNull();
    const spy = countedReads(on.store);
    const again = createRunCommands({ store: spy.store, runbook: () => runbook, ids: () => taken, now: () => new Date('2026-11-29T10:05:00Z') });
    expect(await queue(again)).toEqual({ runId: taken, position: null });
    expect(spy.reads()).toBe(1);
    expect(await on.store.readStream(streams.run(taken))).toHaveLength(1);
  });
});
