/**
 * Readers for the step fields that have rules of their own (SPEC.md "Runbook", step
 * object): `needs`, `when_branch`, `on_error`, `approval`, `ui` and template strings.
 */
import type { RunbookCatalog } from './catalog.ts';
import { ActionStep, Approval, StepPosition } from './document.ts';
import { isMapping, type FieldReader, type Loc } from './field-reader.ts';
import type { OnError, StepDefinition } from './model.ts';

const step = ActionStep.entries;

/** The step ids declared in the runbook, and which of them are branch steps. */
export type DeclaredSteps = { ids: ReadonlySet<string>; branches: ReadonlySet<string> };

/**
 * Reads `needs` (default `[]`): each entry a declared step id other than `self`, listed
 * once. Returns only the valid entries, so cycle detection sees real edges only.
 */
export function readNeeds(r: FieldReader, self: string | null, declared: DeclaredSteps): string[] {
  const needs: string[] = [];
  (r.list('needs', step.needs) ?? []).forEach((item, j) => {
    const need = r.check(['needs', j], step.needs.wrapped.item, item);
    if (need === null) return;
    if (need === self) r.report(['needs', j], 'a step cannot need itself');
    else if (!declared.ids.has(need)) r.report(['needs', j], `unknown step '${need}'`);
    else if (needs.includes(need)) r.report(['needs', j], `step '${need}' is listed twice`);
    else needs.push(need);
  });
  return needs;
}

/**
 * Reads `when_branch`: the strings "true"/"false", or the YAML booleans authors write
 * unquoted. It only means something below a branch, so one of `needs` must be one.
 */
export function readWhenBranch(r: FieldReader, needs: string[], declared: DeclaredSteps): StepDefinition['when_branch'] {
  const raw = r.field('when_branch', step.when_branch);
  if (raw === null || raw === undefined) return null;
  const edge = raw === true || raw === 'true' ? 'true' : 'false';
  if (!needs.some((n) => declared.branches.has(n))) r.report(['when_branch'], 'needs a branch step in needs');
  return edge;
}

/** Reads `on_error`: `fail` (default), `continue` or `goto:<step_id>` naming another declared step. */
export function readOnError(r: FieldReader, self: string | null, declared: DeclaredSteps): OnError {
  const raw = r.defaulted('on_error', step.on_error);
  if (raw === 'continue') return { kind: 'continue' };
  if (!raw.startsWith('goto:')) return { kind: 'fail' };
  const target = raw.slice('goto:'.length).trim();
  if (target === self) r.report(['on_error'], 'a step cannot goto itself');
  else if (!declared.ids.has(target)) r.report(['on_error'], `goto names unknown step '${target}'`);
  return { kind: 'goto', target };
}

/** Reads `approval`: `{roles: non-empty list of role names, timeout_h?: hours > 0, message?}`. */
export function readApproval(stepReader: FieldReader): StepDefinition['approval'] {
  const r = stepReader.mapping('approval', step.approval);
  if (r === null) return null;
  r.refuseUnknown(Approval);
  return {
    roles: r.field('roles', Approval.entries.roles) ?? [],
    timeout_h: r.field('timeout_h', Approval.entries.timeout_h) ?? null,
    message: r.field('message', Approval.entries.message) ?? null,
  };
}

/** Reads `ui`: the `{x, y}` canvas position, which the engine ignores. */
export function readUi(stepReader: FieldReader): StepDefinition['ui'] {
  const r = stepReader.mapping('ui', step.ui);
  if (r === null) return null;
  r.refuseUnknown(StepPosition);
  const x = r.field('x', StepPosition.entries.x);
  const y = r.field('y', StepPosition.entries.y);
  return x === null || y === null ? null : { x, y };
}

/**
 * Syntax-checks every string anywhere inside `value` (deep through lists and
 * mappings) as a template, reporting each failure at its own path below `path`.
 */
export function checkTemplates(r: FieldReader, path: Loc, value: unknown, catalog: RunbookCatalog): void {
  if (typeof value === 'string') {
    const problem = catalog.checkTemplate(value);
    if (problem !== null) r.report(path, `invalid template: ${problem}`);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkTemplates(r, [...path, i], item, catalog);
  } else if (isMapping(value)) {
    for (const [key, item] of Object.entries(value)) checkTemplates(r, [...path, key], item, catalog);
  }
}
