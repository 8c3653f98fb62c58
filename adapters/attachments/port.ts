/**
 * The attachment file store as a port (SPEC.md "Case sub-resources": Attachment), so an
 * object store can replace the filesystem one (filesystem.ts) without touching routes.
 *
 * Writing is two-phase: `stage` streams a file into temporary storage while it computes
 * the sha256 and the size; the caller then either `commit`s it (it becomes readable
 * under its key) or `discard`s it (nothing stays behind). A request that turns out bad
 * after its file was streamed (a second file part, a size cap hit) discards, so bad input
 * never leaves a file. Stored files are content-addressed: the key derives from sha256.
 */
import type { Readable } from 'node:stream';

/** A file written to temporary storage, neither visible nor kept until committed. */
export type StagedFile = {
  /** Lower-case hex sha256 of the bytes. */
  sha256: string;
  /** Bytes. */
  size: number;
  /** Makes the file readable under `keyOf(sha256)`; idempotent for equal content. */
  commit: () => Promise<void>;
  /** Removes the temporary file; safe to call after a failed or finished commit. */
  discard: () => Promise<void>;
};

/** A stored file opened for reading. */
export type OpenedFile = { stream: Readable; size: number };

export type FileStore = {
  /**
   * Streams `source` into temporary storage. Rejects with FileTooLarge once more than
   * `maxBytes` arrived, and with the source's or the storage's error otherwise; in
   * every rejection the temporary file is already removed.
   */
  stage: (source: Readable, maxBytes: number) => Promise<StagedFile>;
  /** The committed file of `sha256`, or null when there is none. */
  open: (sha256: string) => Promise<OpenedFile | null>;
  /**
   * Deletes the committed file of `sha256` unless it was written at or after `olderThan`
   * (a concurrent upload of the same bytes just committed it again). True when a file
   * was deleted; false when there was none or it was kept.
   */
  remove: (sha256: string, olderThan: Date) => Promise<boolean>;
};

/** More bytes than the cap arrived; `maxBytes` is the cap. */
export class FileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`file exceeds ${maxBytes} bytes`);
    this.name = 'FileTooLarge';
  }
}
