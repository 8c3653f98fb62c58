/**
 * The `trigger` and `inputs` sections of a runbook (SPEC.md "Runbook" and "Triggers").
 */
import { CronPattern } from 'croner';
import * as v from 'valibot';
import { ConditionValue, RunbookFields, RunbookInput as InputFields, Trigger as TriggerDocument } from './document.ts';
import type { FieldReader } from './field-reader.ts';
import type { AlertTrigger, RunbookInput, Trigger } from './model.ts';

/** Each trigger type's own fields, from the document's variant. */
const TRIGGER_OPTIONS = Object.fromEntries(TriggerDocument.options.map((option) => [option.entries.type.literal, option])) as {
  [Option in (typeof TriggerDocument.options)[number] as Option['entries']['type']['literal']]: Option;
};
const TRIGGER_TYPES = Object.keys(TRIGGER_OPTIONS) as Trigger['type'][];
const TriggerType = v.picklist(TRIGGER_TYPES, `must be one of ${TRIGGER_TYPES.join(', ')}`);

/**
 * Reads the required `trigger` mapping of `runbook`; null (with errors reported) when
 * it is missing or its `type` is not one of alert, manual, schedule. A schedule needs
 * exactly one of a croner-valid `cron` and an integer `interval_s` >= 1 (seconds).
 */
export function readTrigger(runbook: FieldReader): Trigger | null {
  const r = runbook.mapping('trigger', RunbookFields.entries.trigger);
  if (r === null) return null;
  const type = r.field('type', TriggerType);
  if (type === null) return null;
  r.refuseUnknown(TRIGGER_OPTIONS[type]);
  if (type === 'manual') return { type };
  if (type === 'alert') return { type, conditions: readConditions(r) };
  return readSchedule(r);
}

function readConditions(trigger: FieldReader): AlertTrigger['conditions'] {
  const r = trigger.mapping('conditions', TRIGGER_OPTIONS.alert.entries.conditions);
  const conditions: AlertTrigger['conditions'] = {};
  if (r === null) return conditions;
  // An empty list overlaps nothing, so ConditionValue refuses it: the runbook could never fire.
  for (const [key, value] of Object.entries(r.fields)) {
    const checked = r.check([key], ConditionValue, value);
    if (checked !== null) conditions[key] = checked;
  }
  return conditions;
}

function readSchedule(r: FieldReader): Trigger {
  const fields = TRIGGER_OPTIONS.schedule.entries;
  const cron = r.field('cron', fields.cron) ?? null;
  if (cron !== null) {
    try {
      new CronPattern(cron);
    } catch (error) {
      const detail = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
      r.report(['cron'], `invalid cron expression: ${detail}`);
    }
  }
  const interval = r.field('interval_s', fields.interval_s) ?? null;
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
  const items = runbook.list('inputs', RunbookFields.entries.inputs) ?? [];
  const inputs: RunbookInput[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const r = runbook.child(['inputs', i], item);
    if (r === null) return;
    r.refuseUnknown(InputFields);
    const name = r.field('name', InputFields.entries.name);
    if (name !== null && seen.has(name)) r.report(['name'], `duplicate input name '${name}'`);
    if (name !== null) seen.add(name);
    const type = r.field('type', InputFields.entries.type);
    const required = r.defaulted('required', InputFields.entries.required);
    const description = r.defaulted('description', InputFields.entries.description);
    if (name !== null && type !== null) inputs.push({ name, type, required, description });
  });
  return inputs;
}
