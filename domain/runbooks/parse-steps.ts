/**
 * The `steps` section of a runbook (SPEC.md "Runbook", step object) and the checks that
 * span steps: unique ids, references in `needs` and `goto`, and cycles through `needs`.
 */
import type { RunbookCatalog } from './catalog.ts';
import { describeCycle, findCycle } from './dag.ts';
import { ActionStep, BranchStep, RunbookFields } from './document.ts';
import { isMapping, type FieldReader } from './field-reader.ts';
import type { StepDefinition } from './model.ts';
import { checkTemplates, readApproval, readNeeds, readOnError, readUi, readWhenBranch, type DeclaredSteps } from './step-fields.ts';

/**
 * Every field either kind of step defines: a field of the other kind is refused with a
 * message of its own rather than as unknown.
 */
const STEP_FIELDS = { entries: { ...ActionStep.entries, ...BranchStep.entries } };

/**
 * Reads the required, non-empty `steps` list of `runbook`, reporting every problem at
 * `['steps', i, field, ...]` and a `needs` cycle at `['steps']`. Steps without a usable
 * id are left out of the result (their errors are reported).
 */
export function readSteps(runbook: FieldReader, catalog: RunbookCatalog): StepDefinition[] {
  const items = runbook.list('steps', RunbookFields.entries.steps);
  if (items === null || items.length === 0) return [];
  const declared = declaredSteps(items);
  const seen = new Set<string>();
  const steps: StepDefinition[] = [];
  items.forEach((item, i) => {
    const r = runbook.child(['steps', i], item);
    const step = r === null ? null : readStep(r, catalog, declared, seen);
    if (step !== null) steps.push(step);
  });
  const cycle = findCycle(steps);
  if (cycle !== null) runbook.report(['steps'], `steps form a cycle through needs: ${describeCycle(cycle)}`);
  return steps;
}

/**
 * Every id a step claims, read leniently before the steps are checked one by one, so a
 * reference to a step that has other errors is not reported as unknown as well.
 */
function declaredSteps(items: unknown[]): DeclaredSteps {
  const ids = new Set<string>();
  const branches = new Set<string>();
  for (const item of items) {
    if (!isMapping(item) || typeof item.id !== 'string') continue;
    ids.add(item.id);
    if (item.type === 'branch') branches.add(item.id);
  }
  return { ids, branches };
}

function readStep(r: FieldReader, catalog: RunbookCatalog, declared: DeclaredSteps, seen: Set<string>): StepDefinition | null {
  r.refuseUnknown(STEP_FIELDS);
  const id = readId(r, seen);
  const kind = readKind(r);
  const isAction = kind === 'action';
  const action = isAction ? readAction(r, catalog) : refuse(r, 'action', 'a branch step has no action');
  const when = isAction ? refuse(r, 'when', 'only branch steps take when') : readCondition(r, catalog);
  const needs = readNeeds(r, id, declared);
  const whenBranch = readWhenBranch(r, needs, declared);
  const withMap = isAction ? r.mapping('with', ActionStep.entries.with) : refuse(r, 'with', 'a branch step takes no with');
  if (withMap !== null) checkTemplates(r, ['with'], withMap.fields, catalog);
  if (withMap !== null && action !== null) {
    for (const problem of catalog.checkInput(action, withMap.fields)) r.report(['with', ...problem.path], problem.msg);
  }
  const timeout = r.defaulted('timeout_s', ActionStep.entries.timeout_s);
  const retries = r.defaulted('retries', ActionStep.entries.retries);
  const onError = readOnError(r, id, declared);
  const approval = readApproval(r);
  const autonomous = r.defaulted('autonomous', ActionStep.entries.autonomous);
  const forEach = isAction ? (r.field('for_each', ActionStep.entries.for_each) ?? null) : refuse(r, 'for_each', 'a branch step takes no for_each');
  if (forEach !== null) checkTemplates(r, ['for_each'], forEach, catalog);
  const ui = readUi(r);
  if (id === null) return null;
  return {
    id,
    kind,
    action,
    when,
    needs,
    when_branch: whenBranch,
    with: withMap?.fields ?? {},
    timeout_s: timeout,
    retries,
    on_error: onError,
    approval,
    autonomous,
    for_each: forEach,
    ui,
  };
}

function readId(r: FieldReader, seen: Set<string>): string | null {
  const raw = r.get('id');
  const id = r.field('id', ActionStep.entries.id);
  if (id !== null && seen.has(id)) r.report(['id'], `duplicate step id '${id}'`);
  // A malformed id is still the step's name for the references to it (declaredSteps).
  const name = id ?? (typeof raw === 'string' ? raw : null);
  if (name !== null) seen.add(name);
  return name;
}

function readKind(r: FieldReader): StepDefinition['kind'] {
  if (r.get('type') === undefined) return 'action';
  return r.field('type', BranchStep.entries.type) ?? 'action';
}

function readAction(r: FieldReader, catalog: RunbookCatalog): string | null {
  const action = r.field('action', ActionStep.entries.action);
  const problem = action === null ? null : catalog.actionProblem(action);
  if (problem !== null) r.report(['action'], problem);
  return action;
}

function readCondition(r: FieldReader, catalog: RunbookCatalog): string | null {
  const when = r.field('when', BranchStep.entries.when);
  const problem = when === null ? null : catalog.checkCondition(when);
  if (problem !== null) r.report(['when'], `invalid condition: ${problem}`);
  return when;
}

/** Reports `key` as not allowed on this kind of step; the field then reads as null. */
function refuse(r: FieldReader, key: string, msg: string): null {
  if (r.get(key) !== undefined) r.report([key], msg);
  return null;
}
