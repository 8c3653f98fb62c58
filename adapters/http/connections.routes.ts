/**
 * Connection routes (SPEC.md "Actions and connections"), all with `manage_connections`
 * through a realm grant: a connection carries no team, so it is install-wide and no team
 * admin manages it (issue 46). `GET, POST /connections`, `PUT, DELETE /connections/<id>`,
 * `POST /connections/<id>/rotate {secret}` (the old secret keeps working until
 * `rotation_overlap_until`, on every connection answer), and `POST /connections/<id>/test`,
 * the non-effectful probe of adapters/connections/probes.ts. Secrets are write-only, and so
 * is a chat_a connection's `bot_token`.
 *
 * Destination rule (docs/configuration.md "Connections", "Tickets"): only a realm admin
 * sets a ticket connection's `config.mirror_private_cases` true (403 `forbidden` else); a
 * PUT that moves `base_url` or a destination config key turns it off unless it sets it
 * (adapters/connections/destination.ts), and each moved field is audited as
 * `connection.destination_changed` `{field, old, new}`, never with a secret.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { connectionSchema } from '../connections/store.ts';
import { probeResultSchema } from '../connections/probes.ts';
import { requirePermission } from './auth.ts';
import { changedKeys, recordAudit } from './audited.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { idParam, jsonRecord } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';
import { connectionKinds } from '../connections/kinds.ts';
import { MIRROR_PRIVATE_CASES } from '../connections/config-rules.ts';
import { destinationChanges } from '../connections/destination.ts';
import { isRealmAdmin } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { DomainError } from '../../domain/shared/errors.ts';

const kinds = connectionKinds;

const name = v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'must be 2-64 chars of a-z, 0-9, _ or -'));
/** A URL, or null; an empty string is taken as null (a form that leaves the field blank). */
const baseUrl = v.nullable(
  v.pipe(
    v.string(),
    v.transform((u) => (u.trim() === '' ? null : u)),
    v.nullable(v.pipe(v.string(), v.url('must be a URL'))),
  ),
);
const secret = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(16_384));

/** The fields of a new connection of kind `kind`, whose `base_url` is read by `baseUrlField`. */
const newConnectionOf = <K extends v.GenericSchema<string>, B extends v.GenericSchema>(kind: K, baseUrlField: B) =>
  v.object({
    kind,
    name,
    base_url: baseUrlField,
    config: v.optional(jsonRecord(v.unknown()), {}),
    secret: v.optional(v.nullable(secret)),
    bot_token: v.optional(v.nullable(secret)),
  });

/**
 * A new connection. SPEC.md: an ssh connection's base_url is unused (host and port are
 * config), so whatever is sent is dropped; every other kind takes a URL or null.
 */
const newConnection = v.variant('kind', [
  v.pipe(
    newConnectionOf(v.literal('ssh'), v.optional(v.unknown())),
    v.transform((b) => ({ ...b, base_url: null })),
  ),
  newConnectionOf(v.picklist(kinds.filter((k) => k !== 'ssh')), v.optional(baseUrl)),
]);

/** The answer of GET /connections. */
const connectionListSchema = v.strictObject({ items: v.array(connectionSchema) });

/** What the connection routes read of the service (adapters/http/deps.ts). */
export type ConnectionRouteDeps = Pick<HttpDeps, 'audit' | 'connectionProbes' | 'connections' | 'permissions' | 'waitFor'>;

/** The 403 a connection route declares: a caller without a realm grant, or a flag only a realm admin may set. */
const forbiddenAnswer = jsonAnswer(errorBodySchema, 'forbidden: manage_connections needs a realm grant; mirror_private_cases true needs a realm admin');

export function connectionRoutes(deps: ConnectionRouteDeps) {
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions, null);
  /** The consent to mirror private cases out is a realm admin's, asked for explicitly even where the route already is realm-only. */
  const checkMirrorFlag = (principal: Principal, config: Record<string, unknown> | undefined) => {
    if (config?.[MIRROR_PRIVATE_CASES] === true && !isRealmAdmin(principal, deps.permissions)) {
      throw new DomainError('forbidden', 403, `only a realm admin may set ${MIRROR_PRIVATE_CASES}`, { key: MIRROR_PRIVATE_CASES });
    }
  };
  return new Hono<AppEnv>()
    .get(
      '/connections',
      describeRoute({
        summary: 'List connections (secrets never returned)',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionListSchema, 'Every connection, by name'), 403: forbiddenAnswer },
      }),
      manage,
      async (c) => c.json({ items: await deps.connections.list() } satisfies v.InferOutput<typeof connectionListSchema>),
    )
    .post(
      '/connections',
      describeRoute({
        summary: 'Create a connection',
        tags: ['connections'],
        responses: { 201: jsonAnswer(connectionSchema, 'The connection, secrets never included'), 403: forbiddenAnswer },
      }),
      manage,
      requireJson,
      validate('json', newConnection),
      async (c) => {
        const body = c.req.valid('json');
        checkMirrorFlag(c.get('principal'), body.config);
        const created = await deps.connections.create(body);
        await recordAudit(deps, c.get('principal'), {
          action: 'connection.create',
          target: { type: 'connection', id: created.id },
          detail: { kind: created.kind, name: created.name },
        });
        return c.json(created, 201);
      },
    )
    .get(
      '/connections/:id',
      describeRoute({
        summary: 'One connection (secret never returned)',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionSchema, 'The connection, secrets never included'), 403: forbiddenAnswer },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await deps.connections.get(c.req.valid('param').id)),
    )
    .put(
      '/connections/:id',
      describeRoute({
        summary:
          'Change a connection; a new secret replaces the old at once (rotate keeps an overlap); moving base_url or a destination config key turns mirror_private_cases off unless the request sets it',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionSchema, 'The changed connection, secrets never included'), 403: forbiddenAnswer },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate(
        'json',
        v.object({
          name: v.optional(name),
          base_url: v.optional(baseUrl),
          config: v.optional(jsonRecord(v.unknown())),
          secret: v.optional(v.nullable(secret)),
          bot_token: v.optional(v.nullable(secret)),
        }),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const before = await deps.connections.get(id);
        checkMirrorFlag(principal, body.config);
        const updated = await deps.connections.update(id, body);
        await recordAudit(deps, principal, {
          action: 'connection.update',
          target: { type: 'connection', id: updated.id },
          detail: { kind: updated.kind, name: updated.name, changed: changedKeys(body) },
        });
        for (const change of destinationChanges(updated.kind, before, updated)) {
          await recordAudit(deps, principal, { action: 'connection.destination_changed', target: { type: 'connection', id: updated.id }, detail: change });
        }
        return c.json(updated);
      },
    )
    .delete(
      '/connections/:id',
      describeRoute({ summary: 'Delete a connection', tags: ['connections'], responses: { 204: { description: 'Deleted' }, 403: forbiddenAnswer } }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const removed = await deps.connections.get(id);
        await deps.connections.remove(id);
        await recordAudit(deps, c.get('principal'), {
          action: 'connection.delete',
          target: { type: 'connection', id },
          detail: { kind: removed.kind, name: removed.name },
        });
        return c.body(null, 204);
      },
    )
    .post(
      '/connections/:id/rotate',
      describeRoute({
        summary: 'Rotate the secret; the old one keeps working until rotation_overlap_until',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionSchema, 'The connection with its overlap deadline, secrets never included'), 403: forbiddenAnswer },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ secret })),
      async (c) => {
        const rotated = await deps.connections.rotate(c.req.valid('param').id, c.req.valid('json').secret);
        await recordAudit(deps, c.get('principal'), {
          action: 'connection.rotate',
          target: { type: 'connection', id: rotated.id },
          detail: { kind: rotated.kind, name: rotated.name },
        });
        return c.json(rotated);
      },
    )
    .post(
      '/connections/:id/test',
      describeRoute({
        summary: 'Probe the connection without side effects: ok, the checked facts, or the error (host and status, never a secret)',
        tags: ['connections'],
        responses: { 200: jsonAnswer(probeResultSchema, 'The probe report; a failing peer is ok: false, not an error status'), 403: forbiddenAnswer },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await deps.connectionProbes.probe(await deps.connections.resolveById(c.req.valid('param').id))),
    );
}
