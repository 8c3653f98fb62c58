/**
 * Case attachments (SPEC.md "Cases": `POST /cases/<case_id>/attachments` with a
 * multipart `file`, `GET .../attachments/<attachment_id>/download`; our addition:
 * `GET /cases/<case_id>/attachments`). Every route goes through caseAccess: an
 * invisible case is 404 `case_not_found` before any byte of the upload is read; an
 * upload needs `manage_cases` in the case's team (403).
 *
 * Uploads stream to the file store (adapters/attachments) under the size cap
 * `SVC_ATTACHMENT_MAX_BYTES`, which replaces the global body limit on this one route
 * (see `isAttachmentUpload`). Downloads are always `application/octet-stream` with
 * `nosniff` and an `attachment` disposition: a stored file never renders in the
 * service's origin, whatever type its uploader declared.
 */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { HTTPException } from 'hono/http-exception';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { findAttachment, listAttachments, type AttachmentRow } from '../../projections/attachments/attachments.queries.ts';
import { contentDisposition, declaredContentType, sanitizeFilename } from '../attachments/filename.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { attachmentTooLarge, isMultipartFormData, receiveSingleFile } from './multipart.ts';
import { idParam, iso, uuid } from '../shared/shapes.ts';
import { validate } from './validation.ts';

/**
 * Bytes a declared Content-Length may exceed the size cap by before the upload is
 * refused unread: room for the multipart boundaries, part headers and small fields
 * around a file of exactly the cap. The cap on the file itself is enforced exactly
 * while it streams.
 */
const MULTIPART_FRAMING_BYTES = 64 * 1024;

const uploadPath = /\/cases\/[^/]+\/attachments$/;

/** The one request the global body limit skips: an upload, capped by SVC_ATTACHMENT_MAX_BYTES instead. */
export const isAttachmentUpload = (c: Context) => c.req.method === 'POST' && uploadPath.test(c.req.path);

/** A case attachment (SPEC.md "Cases"): its metadata, `size` in bytes, `sha256` lower-case hex. */
const attachmentSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    case_id: v.string(),
    filename: v.string(),
    content_type: v.string(),
    size: v.number(),
    sha256: v.string(),
    uploaded_by: v.nullable(v.string()),
    uploaded_at: v.string(),
  }),
  v.metadata({ ref: 'Attachment' }),
);

const view = (r: AttachmentRow): v.InferOutput<typeof attachmentSchema> => ({
  id: r.id,
  case_id: r.case_id,
  filename: r.filename,
  content_type: r.content_type,
  size: Number(r.size),
  sha256: r.sha256,
  uploaded_by: r.uploaded_by,
  uploaded_at: iso(r.uploaded_at),
});

const fileBody = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: { type: 'object' as const, required: ['file'], properties: { file: { type: 'string' as const, format: 'binary' } } },
    },
  },
};

/** What the attachment routes read of the service (adapters/http/deps.ts). */
export type AttachmentRouteDeps = Pick<HttpDeps, 'attachmentMaxBytes' | 'caseFiles' | 'db' | 'files' | 'permissions' | 'waitFor'>;

export function attachmentRoutes(deps: AttachmentRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/attachments',
      describeRoute({
        summary: 'Attachments of a case, newest first',
        tags: ['cases'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(attachmentSchema) }), 'The attachments, newest first') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        return c.json({ items: (await listAttachments(db, id)).map(view) });
      },
    )
    .post(
      '/cases/:id/attachments',
      describeRoute({
        summary: 'Upload one file as multipart `file`; the server computes sha256 and size (413 `attachment_too_large` above the cap)',
        tags: ['cases'],
        requestBody: fileBody,
        responses: { 201: jsonAnswer(attachmentSchema, 'The stored attachment') },
      }),
      manage,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        if (!isMultipartFormData(c.req.header('content-type'))) throw new HTTPException(415, { message: 'request body must be multipart/form-data' });
        const declaredLength = Number(c.req.header('content-length') ?? Number.NaN);
        if (declaredLength > deps.attachmentMaxBytes + MULTIPART_FRAMING_BYTES) throw attachmentTooLarge(deps.attachmentMaxBytes);
        const received = await receiveSingleFile(c.req.raw, { field: 'file', maxBytes: deps.attachmentMaxBytes, files: deps.files });
        const r = await deps.caseFiles.attach(
          id,
          { staged: received.staged, filename: sanitizeFilename(received.filename), contentType: declaredContentType(received.mimeType) },
          actorOf(principal),
        );
        await deps.waitFor(r.position);
        const row = await findAttachment(db, id, r.attachmentId);
        if (!row) throw new Error(`attachment ${r.attachmentId} missing from the read model after projection`);
        return c.json(view(row), 201);
      },
    )
    .get(
      '/cases/:id/attachments/:attachment_id/download',
      describeRoute({
        summary: 'The bytes of an attachment, always as application/octet-stream',
        tags: ['cases'],
        responses: { 200: { description: 'The stored bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } },
      }),
      read,
      validate('param', v.object({ id: uuid, attachment_id: uuid })),
      async (c) => {
        const { id, attachment_id: attachmentId } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        const row = await findAttachment(db, id, attachmentId);
        if (!row) throw notFound('attachment_not_found', 'attachment not found', { attachment_id: attachmentId });
        const file = await deps.files.open(row.sha256);
        if (!file) throw new Error(`content of attachment ${row.id} (sha256 ${row.sha256}) is missing from the file store`);
        return new Response(Readable.toWeb(file.stream) as unknown as ReadableStream<Uint8Array>, {
          status: 200,
          headers: {
            'content-type': 'application/octet-stream',
            'x-content-type-options': 'nosniff',
            'content-length': String(file.size),
            'content-disposition': contentDisposition(row.filename),
            'content-security-policy': "default-src 'none'; sandbox",
            'cache-control': 'private, no-store',
          },
        });
      },
    );
}
