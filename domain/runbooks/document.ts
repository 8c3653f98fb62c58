/**
 * The runbook document's shape as valibot schemas (SPEC.md "Runbook" and "Triggers"):
 * every field, whether it is required, its default, its type, bounds and the message a
 * wrong value gets. The parser (parse.ts and its readers) checks each field against these
 * schemas, and the published JSON Schema (docs/configuration.md "Runbook editor support",
 * `GET /schemas/runbook.json`) is generated from {@link RunbookDocument}, so the editor's
 * checks and the service's cannot differ.
 *
 * What a JSON Schema cannot say stays in the readers: step references in `needs` and
 * `on_error`, cycles, unique ids and input names, `when_branch` below a branch, exactly
 * one of `cron` and `interval_s`, cron syntax, action names, action inputs, templates and
 * conditions.
 *
 * Optional fields are `nullish` because YAML writes an empty value as null, which the
 * parser reads as absent; their default, when they have one, is the schema's default.
 */
import * as v from 'valibot';
import { booleanField, integerBetween, integerFrom, mustBeOneOf, numberField, stringField, textField } from './field-reader.ts';

const SLUG = /^[a-z0-9-]{3,64}$/;
const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Role names an approval gate may name (SPEC.md "Roles"). */
export const GATE_ROLES = ['viewer', 'analyst', 'approver', 'admin'] as const;
/** Types of a manual run's input. */
export const INPUT_TYPES = ['string', 'number', 'boolean', 'list', 'object'] as const;

/** A trigger condition's value: a scalar the alert fact must equal, or a non-empty list of them. */
const conditionScalar = v.union([v.string(), v.number(), v.boolean()]);
export const ConditionValue = v.union(
  [conditionScalar, v.pipe(v.array(conditionScalar), v.minLength(1, 'must not be an empty list'))],
  'must be a scalar or a list of scalars',
);

/** `trigger.conditions` of an alert trigger. */
export const Conditions = v.record(v.string(), ConditionValue, 'must be a mapping');

/** `trigger`, told apart by `type`. */
export const Trigger = v.variant('type', [
  v.strictObject({
    type: v.literal('alert'),
    conditions: v.pipe(
      v.nullish(Conditions),
      v.description('Alert facts (dotted paths into the normalized alert) and the value, or any of the values, each must equal'),
    ),
  }),
  v.strictObject({ type: v.literal('manual') }),
  v.strictObject({
    type: v.literal('schedule'),
    cron: v.pipe(v.nullish(stringField()), v.description('A cron expression; exactly one of cron and interval_s')),
    interval_s: v.pipe(v.nullish(integerFrom(1)), v.description('Seconds between runs; exactly one of cron and interval_s')),
  }),
]);

/** One item of `inputs`: a parameter of a manual run. */
export const RunbookInput = v.strictObject({
  name: textField(),
  type: v.picklist(INPUT_TYPES, mustBeOneOf(INPUT_TYPES)),
  required: v.nullish(booleanField(), false),
  description: v.nullish(stringField(), ''),
});

/** A step's `approval` gate. */
export const Approval = v.strictObject({
  roles: v.pipe(
    v.array(v.picklist(GATE_ROLES, mustBeOneOf(GATE_ROLES)), 'must be a list'),
    v.minLength(1, 'must name at least one role'),
    v.description('Who may decide the gate'),
  ),
  timeout_h: v.pipe(
    v.nullish(v.pipe(numberField(), v.gtValue(0, 'must be a positive number of hours'))),
    v.description('Hours until the gate expires; absent: the install default'),
  ),
  message: v.nullish(stringField()),
});

/** A step's `ui`: its position on the console's canvas, which the engine ignores. */
export const StepPosition = v.strictObject({ x: numberField(), y: numberField() });

/** The fields action and branch steps share. */
const stepEntries = {
  id: v.pipe(stringField(), v.regex(STEP_ID, `must match ${STEP_ID.source}`)),
  needs: v.pipe(
    v.nullish(v.array(v.string('must be a step id'), 'must be a list'), () => []),
    v.description('Ids of the steps that must end before this one starts'),
  ),
  when_branch: v.pipe(
    v.nullish(v.union([v.picklist(['true', 'false']), v.boolean()], 'must be "true" or "false"')),
    v.description('Below a branch step: the outcome this step runs on'),
  ),
  timeout_s: v.pipe(v.nullish(integerBetween(1, 86_400), 120), v.description('Seconds one attempt may take')),
  retries: v.pipe(v.nullish(integerBetween(0, 10), 0), v.description('Attempts after the first')),
  on_error: v.pipe(
    v.nullish(v.pipe(stringField(), v.regex(/^(?:fail|continue|goto:.*)$/, 'must be fail, continue or goto:<step_id>')), 'fail'),
    v.description('fail (the run fails), continue, or goto:<step_id> to rerun from that step'),
  ),
  approval: v.pipe(v.nullish(Approval), v.description('A human approval gate before the step runs')),
  autonomous: v.pipe(v.nullish(booleanField(), false), v.description('Whether an AI action may act without a gate')),
  ui: v.pipe(v.nullish(StepPosition), v.description("The step's position on the console's canvas; the engine ignores it")),
};

/** A step that runs an action. */
export const ActionStep = v.strictObject({
  ...stepEntries,
  action: v.pipe(textField(), v.description('An action name from GET /actions')),
  with: v.pipe(v.nullish(v.record(v.string(), v.unknown(), 'must be a mapping')), v.description("The action's input; strings are templates")),
  for_each: v.pipe(v.nullish(stringField()), v.description('A template giving a list: the action runs once per item')),
});

/** A step that chooses between its `when_branch: "true"` and `"false"` successors. */
export const BranchStep = v.strictObject({
  ...stepEntries,
  type: v.literal('branch', "must be 'branch' (leave type out for an action step)"),
  when: v.pipe(textField(), v.description('A condition over trigger, inputs and steps')),
});

/** The runbook's own fields. */
export const RunbookFields = v.strictObject({
  id: v.pipe(stringField(), v.regex(SLUG, `must match ${SLUG.source}`)),
  name: textField(),
  description: v.nullish(stringField(), ''),
  version: v.nullish(integerFrom(1), 1),
  enabled: v.nullish(booleanField(), true),
  trigger: Trigger,
  inputs: v.pipe(
    v.nullish(v.array(RunbookInput, 'must be a list'), () => []),
    v.description('Parameters of a manual run'),
  ),
  steps: v.pipe(v.array(v.union([ActionStep, BranchStep]), 'must be a list'), v.minLength(1, 'must have at least one step')),
});

/** The whole runbook document, as the published JSON Schema names it. */
export const RunbookDocument = v.pipe(
  RunbookFields,
  v.title('Runbook'),
  v.description('A runbook of the incident-response service (docs/configuration.md "Runbooks and runs")'),
);
