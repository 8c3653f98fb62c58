/**
 * Small request and answer shapes shared by the route modules: ISO timestamps,
 * UUID path/query values, `true`/`false` query flags, and `limit`/`offset` paging (1..200, default 50).
 */
import * as v from 'valibot';

/** A database timestamp as RFC 3339 text, or null. */
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * A UUID in its canonical lower-case form. Every id the service mints is lower case, and
 * ids are compared as text (stream names, secrets bound to their row id), so an id
 * spelled in upper case must address the same object, never a second one.
 */
export const uuid = v.pipe(v.string(), v.uuid('must be a UUID'), v.toLowerCase());

/** The `:id` path parameter of the case, run and other routes: a UUID. */
export const idParam = v.object({ id: uuid });

/** A `true`/`false` query flag, `false` when absent. */
export const queryFlag = v.optional(v.pipe(v.picklist(['true', 'false']), v.transform((s) => s === 'true')), 'false');

export const paging = {
  limit: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(200)), '50'),
  offset: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(0)), '0'),
};
