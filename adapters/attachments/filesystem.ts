/**
 * The filesystem file store (port.ts): committed files live at `<root>/<sha256>`,
 * files being written at `<root>/.tmp-<uuid>` in the same directory, so committing is
 * one atomic rename. `root` is `<SVC_DATA_DIR>/attachments` (docs/configuration.md
 * "Attachments and evidence"). One directory serves one machine: API processes on
 * several machines need a shared mount or an object-store implementation of the port.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileTooLarge, type FileStore, type StagedFile } from './port.ts';

const sha256Hex = /^[0-9a-f]{64}$/;

/** A FileStore under `root` (created on first write). */
export function createFilesystemStore(root: string): FileStore {
  const pathOf = (sha256: string) => {
    if (!sha256Hex.test(sha256)) throw new Error('file key must be a lower-case hex sha256');
    return join(root, sha256);
  };
  return {
    stage: async (source: Readable, maxBytes: number): Promise<StagedFile> => {
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > maxBytes) return done(new FileTooLarge(maxBytes));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      // The source is watched from this tick on: a form cut short destroys it with an error
      // while the directory is still being made, and an unwatched stream error ends the process.
      const metered = pipeline(source, meter);
      metered.catch(() => undefined);
      await mkdir(root, { recursive: true });
      const temporary = join(root, `.tmp-${randomUUID()}`);
      const sink = createWriteStream(temporary, { flags: 'wx' });
      try {
        await Promise.all([metered, pipeline(meter, sink)]);
      } catch (error) {
        // A stream cut before its file finished opening still creates the file when the
        // open completes: remove it only once the sink has closed.
        if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
        await rm(temporary, { force: true });
        throw await metered.then(
          () => error,
          (first: unknown) => first,
        );
      }
      const sha256 = hash.digest('hex');
      return {
        sha256,
        size,
        commit: async () => {
          try {
            await rename(temporary, pathOf(sha256));
          } catch (error) {
            await rm(temporary, { force: true });
            throw error;
          }
        },
        discard: () => rm(temporary, { force: true }),
      };
    },
    remove: async (sha256: string, olderThan: Date) => {
      const path = pathOf(sha256);
      // Moved aside first, so an upload committing the same key meanwhile lands a new
      // file instead of losing it; a fresh file found aside is put back.
      const aside = join(root, `.rm-${randomUUID()}`);
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
      const { mtime } = await stat(aside);
      if (mtime >= olderThan) {
        await rename(aside, path);
        return false;
      }
      await rm(aside, { force: true });
      return true;
    },
    open: async (sha256: string) => {
      const path = pathOf(sha256);
      try {
        const { size } = await stat(path);
        return { stream: createReadStream(path), size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}
