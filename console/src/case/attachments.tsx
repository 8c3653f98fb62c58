/**
 * The files attached to a case (`GET /cases/<id>/attachments`, newest first): name, size,
 * uploader and time, each a download link (`GET /cases/<id>/attachments/<attachment_id>/download`,
 * always served as a download). With `canEdit` a file is uploaded
 * (`POST /cases/<id>/attachments`, multipart field `file`; the service's size cap
 * SVC_ATTACHMENT_MAX_BYTES refuses a larger one with 413, shown in words).
 */
import { type FormEvent, useId, useRef, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, apiUrl, client, fileUpload } from '../api.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

/** `size` bytes as `512 B`, `12.5 KB`, `3.1 MB` or `1.2 GB`. */
function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function Upload({ caseId, onUploaded }: { caseId: string; onUploaded: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File | null>(null);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    action.run(
      async () => answer(await client.POST('/cases/{id}/attachments', { params: { path: { id: caseId } }, ...fileUpload(chosen) })),
      () => {
        setChosen(null);
        if (input.current) input.current.value = '';
        onUploaded();
      },
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <h3>Upload a file</h3>
      <div className="row">
        <label>
          File
          <input ref={input} type="file" onChange={(event) => setChosen(event.target.files?.[0] ?? null)} required />
        </label>
        <button type="submit" className="primary" disabled={action.busy || !chosen}>
          {action.busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** The case's attachments; `canEdit` (the caller may manage cases) shows the upload form. */
export function AttachmentsPanel({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const headingId = useId();
  const attachments = useResource(
    async () => answer(await client.GET('/cases/{id}/attachments', { params: { path: { id: caseId } } })),
    [caseId],
    aboutCase(caseId),
  );
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Attachments</h2>
      <ErrorNote error={attachments.error} />
      {!attachments.data && !attachments.error && <Loading what="attachments" />}
      {attachments.data?.items.length === 0 && <p className="muted">No files attached.</p>}
      <ul className="plain">
        {attachments.data?.items.map((file) => (
          <li key={file.id}>
            <a href={apiUrl(`/cases/${caseId}/attachments/${file.id}/download`)} download={file.filename}>
              {file.filename}
            </a>{' '}
            <span className="muted">
              {bytes(file.size)} · {file.uploaded_by ?? 'someone'}, <Ago at={file.uploaded_at} />
            </span>
            <div className="mono muted" title="SHA-256 of the file">
              sha256 {file.sha256}
            </div>
          </li>
        ))}
      </ul>
      {canEdit && <Upload caseId={caseId} onUploaded={attachments.reload} />}
    </section>
  );
}
