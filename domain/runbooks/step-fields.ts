/**
 * Readers for the step fields that have rules of their own (SPEC.md "Runbook", step
 * object): `needs`, `when_branch`, `on_error`, `approval`, `ui` and template strings.
 */
import type { RunbookCatalog } from './catalog.ts';
import { isMapping, type FieldReader, type Loc } from './field-reader.ts';
import type { OnError, StepDefinition } from './model.ts';

/** The step ids declared in the runbook, and which of them are branch steps. */
export type DeclaredSteps = { ids: ReadonlySet<string>; branches: ReadonlySet<string> };

const APPROVAL_FIELDS = ['roles', 'timeout_h', 'message'];
const ROLES = ['viewer', 'analyst', 'approver', 'admin'];

/**
 * Reads `needs` (default `[]`): each entry a declared step id other than `self`, listed
 * once. Returns only the valid entries, so cycle detection sees real edges only.
 */
export function readNeeds(r: FieldReader, self: string | null, declared: DeclaredSteps): string[] {
  const needs: string[] = [];
  (r.list('needs', false) ?? []).forEach((need, j) => {
    if (typeof need !== 'string') r.report(['needs', j], 'must be a step id');
    else if (need === self) r.report(['needs', j], 'a step cannot need itself');
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
  const raw = r.get('when_branch');
  if (raw === undefined) return null;
  const edge = raw === true || raw === 'true' ? 'true' : raw === false || raw === 'false' ? 'false' : null;
  if (edge === null) r.report(['when_branch'], 'must be "true" or "false"');
  else if (!needs.some((n) => declared.branches.has(n))) r.report(['when_branch'], 'needs a branch step in needs');
  return edge;
}

/** Reads `on_error`: `fail` (default), `continue` or `goto:<step_id>` naming another declared step. */
export function readOnError(r: FieldReader, self: string | null, declared: DeclaredSteps): OnError {
  const raw = r.string('on_error', false);
  if (raw === null || raw === 'fail') return { kind: 'fail' };
  if (raw === 'continue') return { kind: 'continue' };
  if (!raw.startsWith('goto:')) {
    r.report(['on_error'], 'must be fail, continue or goto:<step_id>');
    return { kind: 'fail' };
  }
  const target = raw.slice('goto:'.length).trim();
  if (target === self) r.report(['on_error'], 'a step cannot goto itself');
  else if (!declared.ids.has(target)) r.report(['on_error'], `goto names unknown step '${target}'`);
  return { kind: 'goto', target };
}

/** Reads `approval`: `{roles: non-empty list of role names, timeout_h?: hours > 0, message?}`. */
export function readApproval(step: FieldReader): StepDefinition['approval'] {
  const r = step.mapping('approval', false);
  if (r === null) return null;
  r.refuseUnknown(APPROVAL_FIELDS);
  const roles = r.list('roles', true) ?? [];
  if (r.get('roles') !== undefined && roles.length === 0) r.report(['roles'], 'must name at least one role');
  roles.forEach((role, j) => {
    if (typeof role !== 'string' || !ROLES.includes(role)) r.report(['roles', j], `must be one of ${ROLES.join(', ')}`);
  });
  const timeout = r.number('timeout_h', false);
  if (timeout !== null && timeout <= 0) r.report(['timeout_h'], 'must be a positive number of hours');
  return {
    roles: roles.filter((role): role is string => typeof role === 'string'),
    timeout_h: timeout,
    message: r.string('message', false),
  };
}

/** Reads `ui`: the `{x, y}` canvas position, which the engine ignores. */
export function readUi(step: FieldReader): StepDefinition['ui'] {
  const r = step.mapping('ui', false);
  if (r === null) return null;
  r.refuseUnknown(['x', 'y']);
  const x = r.number('x', true);
  const y = r.number('y', true);
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
