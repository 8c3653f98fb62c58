/**
 * Runbook YAML to a validated RunbookDefinition (SPEC.md "Runbook"; the error list is
 * what POST /runbooks/validate returns, SPEC.md "Runbooks and runs").
 */
import { parseDocument } from 'yaml';
import type { RunbookCatalog } from './catalog.ts';
import { RunbookFields } from './document.ts';
import { FieldReader, isMapping } from './field-reader.ts';
import type { RunbookDefinition, RunbookError } from './model.ts';
import { readSteps } from './parse-steps.ts';
import { readInputs, readTrigger } from './parse-trigger.ts';

export type { RunbookCatalog } from './catalog.ts';

/**
 * Parses and validates one runbook document against document.ts's schemas and the rules
 * that span fields. Defaults are applied (description '', version 1, enabled true, step
 * timeout_s 120, retries 0, on_error fail, ...).
 * Returns every problem found, in document order per section, each as
 * `{loc, msg}` with `loc` the path into the document; a YAML syntax error is the single
 * error `{loc: [], msg}` with the line in `msg`. Never throws.
 */
export function parseRunbook(yamlText: string, catalog: RunbookCatalog): { ok: true; runbook: RunbookDefinition } | { ok: false; errors: RunbookError[] } {
  const loaded = loadYaml(yamlText);
  if (!loaded.ok) return { ok: false, errors: [{ loc: [], msg: loaded.msg }] };
  if (!isMapping(loaded.value)) return { ok: false, errors: [{ loc: [], msg: 'a runbook must be a YAML mapping' }] };
  const errors: RunbookError[] = [];
  const r = new FieldReader(loaded.value, [], errors);
  const fields = RunbookFields.entries;
  r.refuseUnknown(RunbookFields);
  const id = r.field('id', fields.id);
  const name = r.field('name', fields.name);
  const description = r.defaulted('description', fields.description);
  const version = r.defaulted('version', fields.version);
  const enabled = r.defaulted('enabled', fields.enabled);
  const trigger = readTrigger(r);
  const inputs = readInputs(r);
  const steps = readSteps(r, catalog);
  if (errors.length > 0 || id === null || name === null || trigger === null) return { ok: false, errors };
  return { ok: true, runbook: { id, name, description, version, enabled, trigger, inputs, steps } };
}

/** Parses YAML text to plain JS, or the first syntax error (with its line) as one message; never throws. */
export function loadYaml(text: string): { ok: true; value: unknown } | { ok: false; msg: string } {
  const doc = parseDocument(text);
  const [syntaxError] = doc.errors;
  // yaml's message goes on with a multi-line excerpt; its first line already names the line and column.
  if (syntaxError) return { ok: false, msg: `invalid YAML: ${firstLine(syntaxError.message)}` };
  try {
    return { ok: true, value: doc.toJS() };
  } catch (error) {
    // Aliases are resolved only here: an unknown anchor or an alias bomb throws.
    return { ok: false, msg: `invalid YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:$/, '');
}
