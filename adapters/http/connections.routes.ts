/**
 * Connection routes (SPEC.md "Actions and connections"), all with `manage_connections`:
 * `GET, POST /connections`, `PUT, DELETE /connections/<id>`, `POST
 * /connections/<id>/rotate {secret}` (the old secret keeps working until
 * `rotation_overlap_until`, on every connection answer), and `POST /connections/<id>/test`,
 * the non-effectful probe of adapters/connections/probes.ts. Secrets are write-only, and so
 * is a chat_a connection's `bot_token`.
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
import { jsonAnswer } from './openapi.ts';
import { idParam, jsonRecord } from './shapes.ts';
import { requireJson, validate } from './validation.ts';
import { connectionKinds } from '../connections/kinds.ts';

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

export function connectionRoutes(deps: ConnectionRouteDeps) {
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions);
  return new Hono<AppEnv>()
    .get(
      '/connections',
      describeRoute({
        summary: 'List connections (secrets never returned)',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionListSchema, 'Every connection, by name') },
      }),
      manage,
      async (c) => c.json({ items: await deps.connections.list() } satisfies v.InferOutput<typeof connectionListSchema>),
    )
    .post(
      '/connections',
      describeRoute({
        summary: 'Create a connection',
        tags: ['connections'],
        responses: { 201: jsonAnswer(connectionSchema, 'The connection, secrets never included') },
      }),
      manage,
      requireJson,
      validate('json', newConnection),
      async (c) => {
        const created = await deps.connections.create(c.req.valid('json'));
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
        responses: { 200: jsonAnswer(connectionSchema, 'The connection, secrets never included') },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await deps.connections.get(c.req.valid('param').id)),
    )
    .put(
      '/connections/:id',
      describeRoute({
        summary: 'Change a connection; a new secret replaces the old at once (rotate keeps an overlap)',
        tags: ['connections'],
        responses: { 200: jsonAnswer(connectionSchema, 'The changed connection, secrets never included') },
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
        const body = c.req.valid('json');
        const updated = await deps.connections.update(c.req.valid('param').id, body);
        await recordAudit(deps, c.get('principal'), {
          action: 'connection.update',
          target: { type: 'connection', id: updated.id },
          detail: { kind: updated.kind, name: updated.name, changed: changedKeys(body) },
        });
        return c.json(updated);
      },
    )
    .delete(
      '/connections/:id',
      describeRoute({ summary: 'Delete a connection', tags: ['connections'], responses: { 204: { description: 'Deleted' } } }),
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
        responses: { 200: jsonAnswer(connectionSchema, 'The connection with its overlap deadline, secrets never included') },
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
        responses: { 200: jsonAnswer(probeResultSchema, 'The probe report; a failing peer is ok: false, not an error status') },
      }),
      manage,
      validate('param', idParam),
      async (c) => c.json(await deps.connectionProbes.probe(await deps.connections.resolveById(c.req.valid('param').id))),
    );
}
