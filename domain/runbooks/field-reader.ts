/**
 * Reads of one YAML mapping for the runbook parser, each checked against its field's
 * valibot schema in document.ts (which says whether the field is required, its default,
 * its type and the message a wrong value gets). Every problem is reported into a shared
 * list with its full loc and the read yields null, so validation goes on and the validate
 * endpoint gets every error at once (SPEC.md "Runbooks and runs").
 */
import * as v from 'valibot';
import type { RunbookError } from './model.ts';

export type Loc = (string | number)[];

/** A field's schema: required, or `nullish` (absent, or YAML's empty value, reads as its default). */
type FieldSchema = v.GenericSchema;

/** True for a YAML mapping as `yaml` turns it into JS: a plain object. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message of a choice among `choices`. */
export const mustBeOneOf = (choices: readonly string[]) => `must be one of ${choices.join(', ')}`;

/** A string (may be empty). */
export const stringField = () => v.string('must be a string');
/** A string that is not empty or blank. */
export const textField = () => v.pipe(stringField(), v.regex(/\S/, 'must not be empty'));
/** A finite number; JSON has no other, so a JSON Schema leaves `finite` out. */
export const numberField = (message = 'must be a number') => v.pipe(v.number(message), v.finite(message));
/** A YAML boolean. */
export const booleanField = () => v.boolean('must be true or false');

/** An integer of at least `min`. */
export function integerFrom(min: number) {
  const message = `must be an integer of at least ${min}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message));
}

/** An integer within `[min, max]`. */
export function integerBetween(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
}

function isOptional(schema: FieldSchema): boolean {
  return schema.type === 'nullish' || schema.type === 'optional';
}

type ListSchema = v.GenericSchema & { message?: v.ErrorMessage<v.ArrayIssue>; pipe?: readonly unknown[] };
const listLevels = new WeakMap<FieldSchema, v.GenericSchema>();

/**
 * The list-level half of a list field's schema: its type message and its pipe's checks
 * (such as a minimum length), with the items left unchecked, since FieldReader.list's
 * caller checks each item itself and the whole list would otherwise be validated twice.
 */
function listLevel(schema: FieldSchema): v.GenericSchema {
  const known = listLevels.get(schema);
  if (known) return known;
  const list = (isOptional(schema) ? (schema as unknown as { wrapped: FieldSchema }).wrapped : schema) as ListSchema;
  if (list.type !== 'array') throw new TypeError(`FieldReader.list needs an array schema, got ${list.type}`);
  const items = v.array(v.unknown(), list.message);
  const checks = list.pipe?.slice(1) ?? [];
  // v.pipe is typed for a literal list of actions; these are the very actions the field's schema holds.
  const level = checks.length === 0 ? items : (v.pipe as unknown as (...parts: unknown[]) => v.GenericSchema)(items, ...checks);
  listLevels.set(schema, level);
  return level;
}

export class FieldReader {
  constructor(
    readonly fields: Record<string, unknown>,
    readonly loc: Loc,
    private readonly errors: RunbookError[],
  ) {}

  /** Records a problem at `path` below this mapping (`[]`: the mapping itself). */
  report(path: Loc, msg: string): void {
    this.errors.push({ loc: [...this.loc, ...path], msg });
  }

  /** The field's value; absent and an explicit YAML null both read as undefined. */
  get(key: string): unknown {
    return Object.hasOwn(this.fields, key) && this.fields[key] !== null ? this.fields[key] : undefined;
  }

  /** Reports, each on its own, every field `object` does not define. */
  refuseUnknown(object: { entries: Record<string, unknown> }): void {
    for (const key of Object.keys(this.fields)) {
      if (!Object.hasOwn(object.entries, key)) this.report([key], `unknown field '${key}'`);
    }
  }

  /** A reader for a nested value at `path` below this mapping, or null (reported) when it is not a mapping. */
  child(path: Loc, value: unknown): FieldReader | null {
    if (isMapping(value)) return new FieldReader(value, [...this.loc, ...path], this.errors);
    this.report(path, 'must be a mapping');
    return null;
  }

  /**
   * Checks `value` (at `path` below this mapping) against `schema`, reporting every
   * problem at its own path; the schema's output, or null when there was one.
   */
  check<S extends v.GenericSchema>(path: Loc, schema: S, value: unknown): v.InferOutput<S> | null {
    const result = v.safeParse(schema, value, { abortPipeEarly: true });
    if (result.success) return result.output;
    for (const issue of result.issues) this.report([...path, ...(issue.path ?? []).map((item) => item.key as string | number)], issue.message);
    return null;
  }

  /**
   * The field `key` checked against its schema: its default (or null) when absent and
   * optional, 'field required' when absent and required.
   */
  field<S extends FieldSchema>(key: string, schema: S): v.InferOutput<S> | null {
    const value = this.get(key);
    if (value === undefined) return this.absent(key, schema);
    return this.check([key], schema, value);
  }

  /**
   * An optional field with a default: its value, else (absent or wrong, the latter
   * reported) the schema's default, so the reader's result keeps the field's type.
   */
  defaulted<S extends FieldSchema>(key: string, schema: S): NonNullable<v.InferOutput<S>> {
    return (this.field(key, schema) ?? v.getDefault(schema as never)) as NonNullable<v.InferOutput<S>>;
  }

  /** A nested mapping field, or null when absent or not a mapping; its fields are the caller's to read. */
  mapping(key: string, schema: FieldSchema): FieldReader | null {
    const value = this.get(key);
    if (value !== undefined) return this.child([key], value);
    this.absent(key, schema);
    return null;
  }

  /**
   * A list field: its own problems (not a list, too short) are reported here, its items
   * are the caller's to check in order, so their problems read in document order.
   */
  list(key: string, schema: FieldSchema): unknown[] | null {
    const value = this.get(key);
    if (value === undefined) return this.absent(key, schema) as unknown[] | null;
    const result = v.safeParse(listLevel(schema), value, { abortPipeEarly: true });
    for (const issue of result.issues ?? []) this.report([key], issue.message);
    return Array.isArray(value) ? value : null;
  }

  private absent<S extends FieldSchema>(key: string, schema: S): v.InferOutput<S> | null {
    if (isOptional(schema)) return (v.getDefault(schema as never) as v.InferOutput<S> | undefined) ?? null;
    this.report([key], 'field required');
    return null;
  }
}
