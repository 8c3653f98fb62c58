/**
 * The query string of a peer route (SPEC.md "Peer endpoints"): peers get 400
 * `peer_bad_request` for anything malformed, never the framework's 422, and a parameter
 * given twice or one the route does not know is malformed too (a peer that misspells a
 * filter must not silently get the unfiltered answer).
 */
import type { Context } from 'hono';
import * as v from 'valibot';
import { peerBadRequest } from './account-section.ts';

/** The `user` a peer route names: an identity subject, trimmed, 1 to 200 characters. */
export const peerSubject = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200));

/**
 * `c`'s query parsed by `schema`, each parameter at most once and each one a key of `schema`.
 * @throws DomainError 400 `peer_bad_request` naming the first offending parameter.
 */
export function peerQuery<S extends v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>>(c: Context, schema: S): v.InferOutput<S> {
  const raw: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!Object.hasOwn(schema.entries, name)) throw peerBadRequest(`unknown query parameter ${name}`, { parameter: name });
    if (values.length !== 1) throw peerBadRequest(`query parameter ${name} must be given once`, { parameter: name });
    raw[name] = values[0] as string;
  }
  const parsed = v.safeParse(schema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const name = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    throw peerBadRequest(name === '' ? issue.message : `query parameter ${name}: ${issue.message}`, { parameter: name });
  }
  return parsed.output;
}
