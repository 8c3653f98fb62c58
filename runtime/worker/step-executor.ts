/**
 * Executes one action step (SPEC.md "Step object", "Dry-run"): renders `with` with
 * the run's template context, validates it against the action's input schema,
 * resolves the connection named by `with.connection` (a reserved key, never passed
 * to the action; absent, the action's `defaultConnection`), then calls `execute`
 * (live) or `preview` (dry run) under the step's `timeout_s`, retrying retryable
 * failures `retries` times with exponential backoff (base 2 s). Never throws: failures come back as an `error` outcome. The
 * outcome's input and output are masked by the action's `redactLog`, if it has one.
 *
 * Each call carries the delivery id of its message (ActionContext.deliveryId): from the
 * run, the step, the step's pass (`StepRequest.pass`) and the `for_each` item's index, so
 * it is the same on every retry here and on the re-execution after a worker crash (the
 * next attempt of the same pass), and new for a goto pass and for each item.
 *
 * An action's effect on our own store (`record`) is not run here: `settleRun` runs it
 * into the step's unit of work, once per try of the run driver to append the step's
 * end with it (docs/architecture.md "Run path", crash recovery).
 */
import * as v from 'valibot';
import {
  ActionFailure,
  ApprovalRequired,
  deliveryIdOf,
  requestDigest,
  type ActionContext,
  type ActionGate,
  type CaseEffects,
  type ResolvedConnection,
} from '../../adapters/actions/action.ts';
import type { ActionRegistry } from '../../adapters/action-registry/registry.ts';
import type { UnitOfWork } from '../../adapters/commands/unit-of-work.ts';
import type { TemplateEngine } from '../../adapters/templates/liquid.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';
import { ADMIN_GATE_ROLES, type StepApproval } from '../../domain/runs/index.ts';

export type StepOutcome = { status: 'ok' | 'error'; input: unknown; output: unknown; error: string | null };

/** Stages an action's effect on our store through `cases` and resolves the step's output (ActionDefinition.record). */
export type Recorder = (cases: CaseEffects | null) => Promise<unknown>;

/**
 * One action call that ran: its outcome, the recorder of its store effect (null when it has
 * none, failed, or was a preview), and the gates it asked for instead of running (empty
 * unless the action, deciding at execution, found its request not covered by the step's
 * approval: the driver then opens a gate rather than ending the step).
 */
export type ActionRun = StepOutcome & { record: Recorder | null; gates: readonly AskedGate[] };

/** A gate an action asked for at execution, with the delivery id of the call that asked (the key of its `resume`). */
export type AskedGate = ActionGate & { deliveryId: string };

export type StepExecutorDeps = {
  actions: ActionRegistry;
  templates: TemplateEngine;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  backoffBaseMs: number;
  /** SVC_GATE_EVALUATION_TRIES: how many times an action's gate is asked before the step fails with `gate_evaluation_failed`. */
  gateEvaluationTries: number;
};

export type StepRequest = {
  runId: string;
  step: StepDefinition;
  attempt: number;
  /** The step's pass (domain/runs/state.ts StepState): 1, one more for each goto that reset it. */
  pass: number;
  /** The `for_each` item this call is for (its 0-based index), else null. */
  item: number | null;
  caseId: string | null;
  dryRun: boolean;
  context: Record<string, unknown>;
  /** What people approved for the step in this pass (domain/runs/state.ts), null: nothing. */
  approval: StepApproval | null;
};

const fail = (input: unknown, error: string): ActionRun => ({ status: 'error', input, output: null, error, record: null, gates: [] });
const gated = (input: unknown, gates: readonly AskedGate[]): ActionRun => ({ ...fail(input, 'approval_required'), gates });

/** How a failed action reads in the step's `error`: `<type>: <message>` for an ActionFailure. */
const failureMessage = (error: unknown): string =>
  error instanceof ActionFailure ? `${error.type}: ${error.message}` : `action error: ${error instanceof Error ? error.message : String(error)}`;

/** Runs the step's action once (with its retries) for `req`; its store effect is left to `settleRun`. */
export async function executeStep(deps: StepExecutorDeps, req: StepRequest): Promise<ActionRun> {
  const { step } = req;
  let rendered: Record<string, unknown>;
  try {
    rendered = (await deps.templates.renderValue(step.with, req.context)) as Record<string, unknown>;
  } catch (error) {
    return fail(step.with, `template error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const action = step.action ? deps.actions.implementation(step.action) : undefined;
  if (!action) {
    const problem = step.action ? deps.actions.actionProblem(step.action, true) : null;
    // Without the action there is no redaction to apply: the log keeps the step's templates, not their values.
    if (problem !== null && step.action?.startsWith('custom.')) return fail(step.with, `action_unavailable: ${problem}`);
    return fail(rendered, `action_not_implemented: ${step.action ?? '(none)'} cannot run in this build`);
  }
  // A runbook saved before its action became a containment adapter (a pack installed later) still never calls it directly.
  if (action.managedAdapter) return fail(rendered, `action_unavailable: ${deps.actions.stepProblem(action.name, true)}`);
  // The action log keeps the input and output as the action masks them (ActionDefinition.redactLog).
  const redact = action.redactLog ?? ((row: { input: unknown; output: unknown }) => row);
  const masked = (run: ActionRun): ActionRun => {
    const { input, output } = redact({ input: run.input, output: run.output });
    return { ...run, input, output };
  };
  const failMasked = (input: unknown, error: string): ActionRun => masked(fail(input, error));

  const { connection: stepConnection, ...withoutConnection } = rendered;
  const connectionName = stepConnection ?? action.defaultConnection;
  const parsed = v.safeParse(action.input, withoutConnection);
  if (!parsed.success) {
    const detail = parsed.issues.map((i) => `${v.getDotPath(i) ?? 'with'}: ${i.message}`).join('; ');
    return failMasked(rendered, `invalid input: ${detail}`);
  }
  let connection: ResolvedConnection | null = null;
  if (typeof connectionName === 'string') {
    connection = await deps.resolveConnection(connectionName);
    if (!connection) return failMasked(rendered, `connection_missing: no connection named ${connectionName}`);
    if (connection.kind !== action.connectionKind) {
      return failMasked(rendered, `connection_kind_mismatch: ${connectionName} is ${connection.kind}, ${action.name} needs ${action.connectionKind}`);
    }
  } else if (connectionName !== undefined) {
    return failMasked(rendered, 'invalid input: connection: must be a connection name');
  }

  const deliveryId = deliveryIdOf(req.runId, step.id, req.pass, req.item);
  // Decided again here, not only when the step was admitted: an action that became
  // arbitrary-tier since (a custom action saved again) runs only on an admin's approval.
  if (!req.dryRun && action.adminGate && req.approval?.byAdmin !== true) {
    const message = `${action.name} is an arbitrary-tier custom action: every live execution needs an admin's approval`;
    const request = requestDigest({ action: action.name, tier: 'arbitrary' });
    return masked(gated(rendered, [{ reason: 'risk', roles: ADMIN_GATE_ROLES, message, request, deliveryId }]));
  }

  for (let retry = 0; ; retry++) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ActionFailure('timeout', `step timed out after ${step.timeout_s} s`, true)), step.timeout_s * 1000);
    const context: ActionContext = {
      runId: req.runId,
      stepId: step.id,
      attempt: req.attempt,
      deliveryId,
      caseId: req.caseId,
      connection,
      signal: controller.signal,
      cases: null,
      approval: req.approval,
      resume: (req.approval !== null && Object.hasOwn(req.approval.resume, deliveryId) ? req.approval.resume[deliveryId] : null) ?? null,
      now: deps.now,
    };
    try {
      const work = req.dryRun ? action.preview(parsed.output, context) : action.execute(parsed.output, context);
      const output = await raceAbort(work, controller.signal);
      const record = req.dryRun ? undefined : action.record?.bind(action);
      return masked({
        status: 'ok',
        input: rendered,
        output,
        error: null,
        // What `record` resolves is the stored output: masked like the one `execute` gave.
        record: record ? async (cases) => redact({ input: rendered, output: await record(parsed.output, output, { ...context, cases }) }).output : null,
        gates: [],
      });
    } catch (error) {
      if (error instanceof ApprovalRequired)
        return masked(
          gated(
            rendered,
            error.gates.map((g) => ({ ...g, deliveryId })),
          ),
        );
      if (error instanceof ActionFailure && error.retryable && retry < step.retries) {
        await deps.sleep(deps.backoffBaseMs * 2 ** retry);
        continue;
      }
      return failMasked(rendered, failureMessage(error));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** What a step waits for before it starts (`stepGate`). */
export type GateDecision = { kind: 'run' } | { kind: 'gate'; gates: ActionGate[] } | { kind: 'failed'; error: string };

/**
 * What the step must wait for before this live execution starts, by its action's gate
 * (ActionDefinition.gate): `run` (no gate), `gate` with the gates to open (a `for_each` step
 * asks for each item and waits when any item would, one gate naming every item's
 * request), or `failed` when the action could not tell (its gate threw on each of
 * `gateEvaluationTries` tries, with the step backoff between): the step then ends
 * `gate_evaluation_failed` without starting. Never "no gate" on an error.
 *
 * Input that does not render or validate asks for nothing here: the step then fails on it
 * before its action is called (`executeStep`), and the action decides again at execution
 * in any case.
 */
export async function stepGate(deps: StepExecutorDeps, req: StepRequest): Promise<GateDecision> {
  const action = req.step.action ? deps.actions.implementation(req.step.action) : undefined;
  if (req.dryRun || !action?.gate) return { kind: 'run' };
  const gateOf = async (context: Record<string, unknown>): Promise<ActionGate | null> => {
    let rendered: Record<string, unknown>;
    try {
      rendered = (await deps.templates.renderValue(req.step.with, context)) as Record<string, unknown>;
    } catch {
      return null;
    }
    const { connection, ...input } = rendered;
    const parsed = v.safeParse(action.input, input);
    if (!parsed.success) return null;
    const connectionName = connection ?? action.defaultConnection ?? null;
    return (
      (await action.gate?.(parsed.output, {
        runId: req.runId,
        stepId: req.step.id,
        caseId: req.caseId,
        connectionName: typeof connectionName === 'string' ? connectionName : null,
      })) ?? null
    );
  };
  const evaluate = async (): Promise<ActionGate[]> => {
    if (req.step.for_each === null) {
      const gate = await gateOf(req.context);
      return gate === null ? [] : [gate];
    }
    let list: unknown;
    try {
      list = await deps.templates.renderValue(req.step.for_each, req.context);
    } catch {
      return [];
    }
    if (!Array.isArray(list)) return [];
    const gates: ActionGate[] = [];
    for (const [index, item] of list.entries()) {
      const gate = await gateOf({ ...req.context, item, loop: { index, count: list.length } });
      if (gate !== null) gates.push({ ...gate, message: `[${index}] ${gate.message}` });
    }
    return gates;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const gates = await evaluate();
      return gates.length === 0 ? { kind: 'run' } : { kind: 'gate', gates };
    } catch (error) {
      if (attempt >= deps.gateEvaluationTries) {
        const reason = error instanceof Error ? error.message : String(error);
        return { kind: 'failed', error: `gate_evaluation_failed: whether ${action.name} needs an approval could not be decided (${attempt} tries): ${reason}` };
      }
      await deps.sleep(deps.backoffBaseMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * The outcome of `run` once its store effect is staged: its recorder runs into `unit`
 * through `cases` and gives the output. A recorder that throws makes the outcome `error`
 * and drops what it staged, so a failed step writes no effect. Call it once per try
 * with a fresh unit: it only decides, so a second call repeats nothing.
 */
export async function settleRun(run: ActionRun, unit: UnitOfWork, cases: CaseEffects | null): Promise<StepOutcome> {
  const { record, ...outcome } = run;
  if (record === null) return outcome;
  const mark = unit.mark();
  try {
    return { ...outcome, output: await record(cases) };
  } catch (error) {
    unit.restore(mark);
    return { ...outcome, status: 'error', output: null, error: failureMessage(error) };
  }
}

/** Rejects with the abort reason as soon as the signal fires, even if the action ignores it. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
