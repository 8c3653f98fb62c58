/**
 * One file from a multipart/form-data request (RFC 7578), streamed with busboy into the
 * file store: the body is never buffered whole, and a request that turns out bad leaves
 * no file behind (the staged file is discarded before the error is thrown).
 *
 * Errors: 415 for a body that is not multipart/form-data; 413 `attachment_too_large`
 * `{max_bytes}` once the file passes `maxBytes`; 422 at `["body", field]` for no file
 * part or more than one, at `["body", name]` for a file part under another name, and at
 * `["body"]` for a malformed multipart body. Form fields that are not files are ignored.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type busboy from 'busboy';
import { HTTPException } from 'hono/http-exception';
import { DomainError, ValidationFailed, type ValidationIssue } from '../../domain/shared/errors.ts';
import { FileTooLarge, type FileStore, type StagedFile } from '../attachments/port.ts';

/** The staged file with the name and media type the client declared (both raw). */
export type ReceivedFile = { staged: StagedFile; filename: string | null; mimeType: string | null };

/** True for a `multipart/form-data` content type. */
export const isMultipartFormData = (contentType: string | undefined) => /^multipart\/form-data\s*(;|$)/i.test(contentType ?? '');

export function attachmentTooLarge(maxBytes: number): DomainError {
  return new DomainError('attachment_too_large', 413, `the attachment exceeds ${maxBytes} bytes`, { max_bytes: maxBytes });
}

/** Reads `request`, which must carry exactly one file part named `field`, into `files`. */
export async function receiveSingleFile(request: Request, options: { field: string; maxBytes: number; files: FileStore }): Promise<ReceivedFile> {
  const { field, maxBytes, files } = options;
  const contentType = request.headers.get('content-type') ?? undefined;
  if (!isMultipartFormData(contentType) || contentType === undefined) {
    throw new HTTPException(415, { message: 'request body must be multipart/form-data' });
  }
  const missing = new ValidationFailed([{ loc: ['body', field], msg: `a file part named ${field} is required`, type: 'missing' }]);
  if (!request.body) throw missing;

  // busboy loads on the first upload rather than at every start.
  const { default: parse } = await import('busboy');
  let parser: busboy.Busboy;
  try {
    parser = parse({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      // busboy stops passing bytes of the file one past the cap (its limit fires on reaching
      // it, so a file of exactly the cap must fit); the store refuses that extra byte.
      limits: { files: 1, fileSize: maxBytes + 1, fields: 100, fieldSize: 64 * 1024, parts: 101 },
    });
  } catch (error) {
    throw new ValidationFailed([{ loc: ['body'], msg: `malformed multipart body: ${(error as Error).message}`, type: 'multipart_invalid' }]);
  }

  const problems: ValidationIssue[] = [];
  const part: { staging: Promise<StagedFile> | null; filename: string | null; mimeType: string | null } = { staging: null, filename: null, mimeType: null };
  let staged: StagedFile | null;
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('file', (name, stream, info) => {
        if (name !== field) {
          problems.push({ loc: ['body', name], msg: `unexpected file part; send the file as ${field}`, type: 'unexpected_file' });
          stream.resume();
          return;
        }
        const staging = files.stage(stream, maxBytes);
        Object.assign(part, { staging, filename: info.filename ?? null, mimeType: info.mimeType ?? null });
        // A broken form also fails the staging (busboy destroys the file stream): let the
        // parser's 422 settle first; a storage failure still ends the request at once,
        // since busboy waits forever on a file stream nobody reads.
        staging.catch((error: unknown) => setImmediate(() => reject(error)));
      });
      parser.on('filesLimit', () => {
        problems.push({ loc: ['body', field], msg: 'exactly one file part is accepted', type: 'too_many_files' });
      });
      const body = Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>);
      // Settled by the pipeline, not by busboy's 'close': a form cut short closes the parser
      // before its error reaches the pipeline, and would pass for a complete one.
      pipeline(body, parser).then(resolve, (error: Error) =>
        reject(new ValidationFailed([{ loc: ['body'], msg: `malformed multipart body: ${error.message}`, type: 'multipart_invalid' }])),
      );
    });
    // The form may end before the store settles (or fails) the file.
    staged = await part.staging;
  } catch (error) {
    await discardQuietly(part.staging);
    if (error instanceof FileTooLarge) throw attachmentTooLarge(maxBytes);
    throw error;
  }

  if (staged === null) throw problems.length > 0 ? new ValidationFailed(problems) : missing;
  if (problems.length > 0) {
    await staged.discard();
    throw new ValidationFailed(problems);
  }
  return { staged, filename: part.filename, mimeType: part.mimeType };
}

/** Removes a file that was being staged when the request failed; a failed staging left nothing. */
async function discardQuietly(staging: Promise<StagedFile> | null): Promise<void> {
  const staged = await staging?.catch(() => null);
  await staged?.discard();
}
