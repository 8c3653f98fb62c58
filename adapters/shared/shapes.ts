/**
 * Small request and answer shapes shared by the route modules: ISO timestamps,
 * UUID path/query values, `true`/`false` query flags, and `limit`/`offset` paging (1..200, default 50).
 */
import * as v from 'valibot';

/** A database timestamp as RFC 3339 text, or null; typed non-null for a non-null column, so an answer schema can say `v.string()`. */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null): string | null;
export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

/**
 * A UUID in its canonical lower-case form. Every id the service mints is lower case, and
 * ids are compared as text (stream names, secrets bound to their row id), so an id
 * spelled in upper case must address the same object, never a second one.
 */
export const uuid = v.pipe(v.string(), v.uuid('must be a UUID'), v.toLowerCase());

/**
 * A JSON object whose values match `value`. valibot's record takes an array as an object
 * with keys "0", "1"... and would store `["x"]` as `{"0": "x"}`: an array is refused here.
 */
export const jsonRecord = <V extends v.GenericSchema, K extends v.GenericSchema<string, string> = v.StringSchema<undefined>>(value: V, key?: K) =>
  v.pipe(
    v.custom<unknown>((x) => !Array.isArray(x), 'must be a JSON object, not an array'),
    v.record((key ?? v.string()) as K, value),
  );

/** Trimmed text of 1..`max` characters. */
export const nonEmptyText = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max));

/**
 * A comment body of 1..`max` characters as `{body}`. SPEC.md names the field `text`
 * ("Task comment", "POST .../comments"); `body` is this service's older name, accepted
 * too. Sending both is refused at `text`.
 */
export const commentBody = (max: number) =>
  v.pipe(
    v.object({ text: v.optional(nonEmptyText(max)), body: v.optional(nonEmptyText(max)) }),
    v.forward(
      v.check((b) => (b.text === undefined) !== (b.body === undefined), 'send the comment as text (or body), once'),
      ['text'],
    ),
    v.transform((b) => ({ body: (b.text ?? b.body) as string })),
  );

/** The `:id` path parameter of the case, run and other routes: a UUID. */
export const idParam = v.object({ id: uuid });

/** A `true`/`false` query flag, `false` when absent. */
export const queryFlag = v.optional(
  v.pipe(
    v.picklist(['true', 'false']),
    v.transform((s) => s === 'true'),
  ),
  'false',
);

/** Deepest `offset` a page may start at: past it, narrow the filters (docs/configuration.md "Errors"). */
export const MAX_PAGE_OFFSET = 100_000;

/**
 * A whole number written in plain decimal digits, from `min` to `max`: `1e12`, `0x10`,
 * ` 5` and `5.0` are refused rather than read as numbers JavaScript would accept.
 */
export const queryInt = (min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^-?\d{1,16}$/, 'must be a whole number in decimal digits'), v.toNumber(), v.integer(), v.minValue(min), v.maxValue(max));

export const paging = {
  limit: v.optional(queryInt(1, 200), '50'),
  offset: v.optional(queryInt(0, MAX_PAGE_OFFSET), '0'),
};
