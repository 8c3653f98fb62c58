/**
 * Typed reads of one YAML mapping for the runbook parser. Every problem is reported
 * into a shared list with its full loc and the read yields null, so validation goes on
 * and the validate endpoint gets every error at once (SPEC.md "Runbooks and runs").
 */
import type { RunbookError } from './model.ts';

export type Loc = (string | number)[];

/** True for a YAML mapping as `yaml` turns it into JS: a plain object. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

  /** Reports, each on its own, every field the DSL does not define here. */
  refuseUnknown(allowed: readonly string[]): void {
    for (const key of Object.keys(this.fields)) {
      if (!allowed.includes(key)) this.report([key], `unknown field '${key}'`);
    }
  }

  /** A reader for a nested value at `path` below this mapping, or null (reported) when it is not a mapping. */
  child(path: Loc, value: unknown): FieldReader | null {
    if (isMapping(value)) return new FieldReader(value, [...this.loc, ...path], this.errors);
    this.report(path, 'must be a mapping');
    return null;
  }

  /** A nested mapping field, or null when absent or invalid. */
  mapping(key: string, required: boolean): FieldReader | null {
    const value = this.present(key, required);
    return value === undefined ? null : this.child([key], value);
  }

  /** A list field, items unchecked. */
  list(key: string, required: boolean): unknown[] | null {
    const value = this.present(key, required);
    if (value === undefined) return null;
    if (Array.isArray(value)) return value;
    this.report([key], 'must be a list');
    return null;
  }

  /** A string field (may be empty). */
  string(key: string, required: boolean): string | null {
    const value = this.present(key, required);
    if (value === undefined) return null;
    if (typeof value === 'string') return value;
    this.report([key], 'must be a string');
    return null;
  }

  /** A string that must not be empty or blank. */
  text(key: string, required: boolean): string | null {
    const value = this.string(key, required);
    if (value === null || value.trim() !== '') return value;
    this.report([key], 'must not be empty');
    return null;
  }

  /** A string field limited to `choices`. */
  choice<T extends string>(key: string, choices: readonly T[], required: boolean): T | null {
    const value = this.present(key, required);
    if (value === undefined) return null;
    if (choices.includes(value as T)) return value as T;
    this.report([key], `must be one of ${choices.join(', ')}`);
    return null;
  }

  /** An integer within `[min, max]`. */
  integer(key: string, min: number, max = Number.POSITIVE_INFINITY): number | null {
    const value = this.present(key, false);
    if (value === undefined) return null;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    this.report([key], Number.isFinite(max) ? `must be an integer from ${min} to ${max}` : `must be an integer of at least ${min}`);
    return null;
  }

  /** A finite number. */
  number(key: string, required: boolean): number | null {
    const value = this.present(key, required);
    if (value === undefined) return null;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    this.report([key], 'must be a number');
    return null;
  }

  /** A YAML boolean field (never required: each has a default). */
  boolean(key: string): boolean | null {
    const value = this.present(key, false);
    if (value === undefined) return null;
    if (typeof value === 'boolean') return value;
    this.report([key], 'must be true or false');
    return null;
  }

  private present(key: string, required: boolean): unknown {
    const value = this.get(key);
    if (value === undefined && required) this.report([key], 'field required');
    return value;
  }
}
