/**
 * The `trigger` and `inputs` sections of a runbook (SPEC.md "Runbook" and "Triggers").
 */
import { CronPattern } from 'croner';
import type { FieldReader } from './field-reader.ts';
import type { AlertTrigger, RunbookInput, Scalar, Trigger } from './model.ts';

const TRIGGER_TYPES = ['alert', 'manual', 'schedule'] as const;
const TRIGGER_FIELDS: Record<Trigger['type'], readonly string[]> = {
  alert: ['type', 'conditions'],
  manual: ['type'],
  schedule: ['type', 'cron', 'interval_s'],
};
const INPUT_FIELDS = ['name', 'type', 'required', 'description'];
const INPUT_TYPES = ['string', 'number', 'boolean', 'list', 'object'] as const;

/**
 * Reads the required `trigger` mapping of `runbook`; null (with errors reported) when
 * it is missing or its `type` is not one of alert, manual, schedule. A schedule needs
 * exactly one of a croner-valid `cron` and an integer `interval_s` >= 1 (seconds).
 */
export function readTrigger(runbook: FieldReader): Trigger | null {
  const r = runbook.mapping('trigger', true);
  if (r === null) return null;
  const type = r.choice('type', TRIGGER_TYPES, true);
  if (type === null) return null;
  r.refuseUnknown(TRIGGER_FIELDS[type]);
  if (type === 'manual') return { type };
  if (type === 'alert') return { type, conditions: readConditions(r) };
  return readSchedule(r);
}

function readConditions(trigger: FieldReader): AlertTrigger['conditions'] {
  const r = trigger.mapping('conditions', false);
  const conditions: AlertTrigger['conditions'] = {};
  if (r === null) return conditions;
  for (const [key, value] of Object.entries(r.fields)) {
    if (isScalar(value)) {
      conditions[key] = value;
    } else if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) {
      conditions[key] = value;
    } else if (Array.isArray(value) && value.length === 0) {
      // An empty list overlaps nothing, so the runbook could never fire.
      r.report([key], 'must not be an empty list');
    } else {
      r.report([key], 'must be a scalar or a list of scalars');
    }
  }
  return conditions;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function readSchedule(r: FieldReader): Trigger {
  const cron = r.string('cron', false);
  if (cron !== null) {
    try {
      new CronPattern(cron);
    } catch (error) {
      const detail = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
      r.report(['cron'], `invalid cron expression: ${detail}`);
    }
  }
  const interval = r.integer('interval_s', 1);
  if ((r.get('cron') === undefined) === (r.get('interval_s') === undefined)) {
    r.report([], 'a schedule needs exactly one of cron or interval_s');
  }
  return { type: 'schedule', cron, interval_s: interval };
}

/**
 * Reads the optional `inputs` list of `runbook` (default `[]`): each item
 * `{name, type, required = false, description = ''}`, names unique. Invalid items are
 * reported and left out.
 */
export function readInputs(runbook: FieldReader): RunbookInput[] {
  const items = runbook.list('inputs', false) ?? [];
  const inputs: RunbookInput[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const r = runbook.child(['inputs', i], item);
    if (r === null) return;
    r.refuseUnknown(INPUT_FIELDS);
    const name = r.text('name', true);
    if (name !== null && seen.has(name)) r.report(['name'], `duplicate input name '${name}'`);
    if (name !== null) seen.add(name);
    const type = r.choice('type', INPUT_TYPES, true);
    const required = r.boolean('required') ?? false;
    const description = r.string('description', false) ?? '';
    if (name !== null && type !== null) inputs.push({ name, type, required, description });
  });
  return inputs;
}
