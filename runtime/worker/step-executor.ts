/**
 * Executes one action step (SPEC.md "Step object", "Dry-run"): renders `with` with
 * the run's template context, validates it against the action's input schema,
 * resolves the connection named by `with.connection` (a reserved key, never passed
 * to the action), then calls `execute` (live) or `preview` (dry run) under the
 * step's `timeout_s`, retrying retryable failures `retries` times with exponential
 * backoff (base 2 s). Never throws: failures come back as an `error` outcome.
 */
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type CaseCommands, type ResolvedConnection } from '../../adapters/actions/action.ts';
import type { ActionRegistry } from '../../adapters/actions/registry.ts';
import type { TemplateEngine } from '../../adapters/templates/liquid.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';

export type StepOutcome = { status: 'ok' | 'error'; input: unknown; output: unknown; error: string | null };

export type StepExecutorDeps = {
  actions: ActionRegistry;
  templates: TemplateEngine;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  backoffBaseMs: number;
};

export type StepRequest = {
  runId: string;
  step: StepDefinition;
  attempt: number;
  caseId: string | null;
  dryRun: boolean;
  context: Record<string, unknown>;
  cases: CaseCommands | null;
};

const fail = (input: unknown, error: string): StepOutcome => ({ status: 'error', input, output: null, error });

export async function executeStep(deps: StepExecutorDeps, req: StepRequest): Promise<StepOutcome> {
  const { step } = req;
  let rendered: Record<string, unknown>;
  try {
    rendered = (await deps.templates.renderValue(step.with, req.context)) as Record<string, unknown>;
  } catch (error) {
    return fail(step.with, `template error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const action = step.action ? deps.actions.implementation(step.action) : undefined;
  if (!action) return fail(rendered, `action_not_implemented: ${step.action ?? '(none)'} cannot run in this build`);

  const { connection: connectionName, ...withoutConnection } = rendered;
  const parsed = v.safeParse(action.input, withoutConnection);
  if (!parsed.success) {
    const detail = parsed.issues.map((i) => `${v.getDotPath(i) ?? 'with'}: ${i.message}`).join('; ');
    return fail(rendered, `invalid input: ${detail}`);
  }
  let connection: ResolvedConnection | null = null;
  if (typeof connectionName === 'string') {
    connection = await deps.resolveConnection(connectionName);
    if (!connection) return fail(rendered, `connection_missing: no connection named ${connectionName}`);
    if (connection.kind !== action.connectionKind) {
      return fail(rendered, `connection_kind_mismatch: ${connectionName} is ${connection.kind}, ${action.name} needs ${action.connectionKind}`);
    }
  } else if (connectionName !== undefined) {
    return fail(rendered, 'invalid input: connection: must be a connection name');
  }

  for (let retry = 0; ; retry++) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ActionFailure('timeout', `step timed out after ${step.timeout_s} s`, true)), step.timeout_s * 1000);
    const context: ActionContext = {
      runId: req.runId,
      stepId: step.id,
      attempt: req.attempt,
      caseId: req.caseId,
      connection,
      signal: controller.signal,
      cases: req.cases,
      now: deps.now,
    };
    try {
      const work = req.dryRun ? action.preview(parsed.output, context) : action.execute(parsed.output, context);
      const output = await raceAbort(work, controller.signal);
      return { status: 'ok', input: rendered, output, error: null };
    } catch (error) {
      const failure = error instanceof ActionFailure ? error : null;
      if (failure?.retryable && retry < step.retries) {
        await deps.sleep(deps.backoffBaseMs * 2 ** retry);
        continue;
      }
      const message = failure ? `${failure.type}: ${failure.message}` : `action error: ${error instanceof Error ? error.message : String(error)}`;
      return fail(rendered, message);
    } finally {
      clearTimeout(timer);
    }
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
