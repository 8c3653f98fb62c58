/**
 * Case attachments over real HTTP (a listening server and fetch with multipart bodies),
 * on every engine (SPEC.md "Cases": `POST /cases/<id>/attachments`, `GET
 * .../attachments/<attachment_id>/download`; docs/configuration.md "Attachments and
 * evidence"): server-computed sha256 and size, safe download headers, the size cap with
 * no file left behind, 415/422 for bad bodies, and case scoping.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, expectDeclared, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = testPerson('vic@example.com', [{ team: 'blue', role: 'viewer' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

const maxBytes = 64 * 1024;
const maxBodyBytes = 4096;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

type Part = { name: string; disposition?: string; type?: string; data: Uint8Array | string };
/** A hand-built multipart/form-data body, for part headers FormData would escape. */
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `svc-test-${randomUUID()}`;
  const chunks = parts.flatMap((p) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.disposition ?? ''}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
    ),
    Buffer.from(p.data),
    Buffer.from('\r\n'),
  ]);
  return { body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe.each(e2eEngines)('case attachments on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  let privateCaseId = '';
  let otherCaseId = '';
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const attachmentsDir = () => join(svc.env.SVC_DATA_DIR ?? '', 'attachments');
  const filesOnDisk = () => {
    try {
      return readdirSync(attachmentsDir()).sort();
    } catch {
      return [];
    }
  };

  /** Sends `body` to the upload route as `who`, with a request-bound token; the answer is held to /openapi.json as callAs holds its own. */
  const upload = async (who: TestPerson, target: string, body: NonNullable<RequestInit['body']>, headers: Record<string, string> = {}) => {
    const path = `/cases/${target}/attachments`;
    const token = await svc.identity.sign({
      token_use: 'assertion',
      sub: who.sub,
      email: who.email,
      name: who.email,
      grants: who.grants,
      htm: 'POST',
      htu: path,
    });
    const res = await svc.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    await expectDeclared(svc, 'POST', path, res, text);
    return { status: res.status, body: text === '' ? null : JSON.parse(text), text };
  };
  const uploadForm = (who: TestPerson, target: string, bytes: Uint8Array, filename: string, type = 'application/octet-stream') => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), filename);
    return upload(who, target, form);
  };
  const uploadParts = (who: TestPerson, target: string, parts: Part[]) => {
    const { body, contentType } = multipart(parts);
    return upload(who, target, body, { 'content-type': contentType });
  };
  const download = async (who: TestPerson, target: string, attachmentId: string) => {
    const path = `/cases/${target}/attachments/${attachmentId}/download`;
    const token = await svc.identity.sign({
      token_use: 'assertion',
      sub: who.sub,
      email: who.email,
      name: who.email,
      grants: who.grants,
      htm: 'GET',
      htu: path,
    });
    const res = await svc.request(path, { headers: { authorization: `Bearer ${token}` } });
    const bytes = new Uint8Array(await res.arrayBuffer());
    await expectDeclared(svc, 'GET', path, res, Buffer.from(bytes).toString('utf8'));
    return { status: res.status, headers: res.headers, bytes };
  };
  const errorOf = (d: { status: number; bytes: Uint8Array }) => JSON.parse(Buffer.from(d.bytes).toString('utf8'));

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: { SVC_ATTACHMENT_MAX_BYTES: String(maxBytes), SVC_MAX_BODY_BYTES: String(maxBodyBytes) } });
    caseId = (await call(ana, 'POST', '/cases', { title: 'Phishing with a payload', severity: 'high' })).body.id;
    privateCaseId = (await call(ana, 'POST', '/cases', { title: 'Insider case', severity: 'medium', private: true })).body.id;
    otherCaseId = (await call(ana, 'POST', '/cases', { title: 'Another case', severity: 'low' })).body.id;
    expect([caseId, privateCaseId, otherCaseId].every(Boolean)).toBe(true);
  });
  afterAll(async () => svc?.close());

  it('stores an upload larger than the global body limit, with server-computed sha256 and size, and lists it', async () => {
    const bytes = randomBytes(20_000);
    expect(bytes.length).toBeGreaterThan(maxBodyBytes);
    const res = await uploadForm(ana, caseId, bytes, 'payload.html', 'text/html');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      case_id: caseId,
      filename: 'payload.html',
      content_type: 'text/html',
      size: bytes.length,
      sha256: sha256(bytes),
      uploaded_by: ana.email,
      uploaded_at: expect.any(String),
    });
    expect(filesOnDisk()).toContain(sha256(bytes));

    const listed = await call(vic, 'GET', `/cases/${caseId}/attachments`);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toContainEqual(res.body);
    const timeline = (await call(ana, 'GET', `/cases/${caseId}/timeline`)).body.items;
    expect(timeline).toContainEqual(
      expect.objectContaining({
        kind: 'attachment_added',
        payload: expect.objectContaining({ attachment_id: res.body.id, sha256: sha256(bytes), size: bytes.length }),
      }),
    );
  });

  it('documents the upload as multipart/form-data with a binary file in /openapi.json', async () => {
    const doc = (await svc.request('/openapi.json').then((r) => r.json())) as { paths: Record<string, Record<string, any>> };
    const upload = doc.paths['/cases/{id}/attachments']?.post;
    expect(upload?.requestBody?.content?.['multipart/form-data']?.schema).toMatchObject({
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' } },
    });
    expect(doc.paths['/cases/{id}/attachments/{attachment_id}/download']?.get).toBeDefined();
    expect(doc.paths['/cases/{id}/evidence']?.post).toBeDefined();
  });

  it('still holds every other route to the global body limit', async () => {
    const res = await call(ana, 'POST', '/cases', { title: 'x'.repeat(maxBodyBytes), severity: 'low' });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('downloads the exact bytes as application/octet-stream with nosniff and a safe disposition', async () => {
    const bytes = Buffer.from('<script>alert(1)</script>');
    const up = await uploadForm(ana, caseId, bytes, 'page.html', 'text/html');
    expect(up.status, up.text).toBe(201);
    const res = await download(vic, caseId, up.body.id);
    expect(res.status).toBe(200);
    expect(Buffer.from(res.bytes).equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
  });

  it('keeps hostile filenames as display metadata only: no path, no controls, quotes and non-ASCII escaped in the header', async () => {
    const cases: { disposition: string; stored: string; header: string }[] = [
      {
        disposition: `; filename*=UTF-8''say%20%22hi%22%20%C3%A9t%C3%A9.txt`,
        stored: 'say "hi" été.txt',
        header: `attachment; filename="say _hi_ _t_.txt"; filename*=UTF-8''say%20%22hi%22%20%C3%A9t%C3%A9.txt`,
      },
      { disposition: `; filename="../../etc/passwd"`, stored: 'passwd', header: `attachment; filename="passwd"; filename*=UTF-8''passwd` },
      { disposition: `; filename*=UTF-8''C%3A%5Ctemp%5Cevil.bat`, stored: 'evil.bat', header: `attachment; filename="evil.bat"; filename*=UTF-8''evil.bat` },
      {
        disposition: `; filename*=UTF-8''report%0D%0ASet-Cookie%3A%20a%3Db.txt`,
        stored: 'reportSet-Cookie: a=b.txt',
        header: `attachment; filename="reportSet-Cookie: a=b.txt"; filename*=UTF-8''reportSet-Cookie%3A%20a%3Db.txt`,
      },
      {
        disposition: '; filename="日本語.pdf"',
        stored: '日本語.pdf',
        header: `attachment; filename="___.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.pdf`,
      },
    ];
    for (const c of cases) {
      const bytes = randomBytes(64);
      const up = await uploadParts(ana, caseId, [{ name: 'file', disposition: c.disposition, type: 'text/plain', data: bytes }]);
      expect(up.status, up.text).toBe(201);
      expect(up.body.filename).toBe(c.stored);
      const res = await download(ana, caseId, up.body.id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(c.header);
      expect(Buffer.from(res.bytes).equals(bytes)).toBe(true);
    }
  });

  it('refuses a file over the cap with 413 attachment_too_large and leaves no file, whether or not the length is declared', async () => {
    const before = filesOnDisk();
    const listed = (await call(ana, 'GET', `/cases/${caseId}/attachments`)).body.items.length;
    const tooLarge = (res: { status: number; body: any }) => {
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'attachment_too_large', params: { max_bytes: maxBytes } });
    };
    // Just over the cap: Content-Length passes the up-front check; the stream is cut.
    tooLarge(await uploadForm(ana, caseId, randomBytes(maxBytes + 1), 'big.bin'));
    // Far over: refused from Content-Length before reading.
    tooLarge(await uploadForm(ana, caseId, randomBytes(maxBytes * 4), 'huge.bin'));
    // No Content-Length at all (chunked): the cap holds while streaming.
    const { body, contentType } = multipart([{ name: 'file', disposition: '; filename="chunked.bin"', data: randomBytes(maxBytes + 10) }]);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < body.length; i += 8192) controller.enqueue(body.subarray(i, i + 8192));
        controller.close();
      },
    });
    tooLarge(await upload(ana, caseId, stream, { 'content-type': contentType }));

    expect(filesOnDisk()).toEqual(before);
    expect(filesOnDisk().filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect((await call(ana, 'GET', `/cases/${caseId}/attachments`)).body.items).toHaveLength(listed);
    // Exactly the cap is accepted.
    const exact = randomBytes(maxBytes);
    const ok = await uploadForm(ana, caseId, exact, 'exact.bin');
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ size: maxBytes, sha256: sha256(exact) });
  });

  it('answers 415 for a body that is not multipart and 422 naming the field for a missing, doubled or misnamed file', async () => {
    const before = filesOnDisk();
    const listed = (await call(ana, 'GET', `/cases/${caseId}/attachments`)).body.items.length;

    const json = await upload(ana, caseId, JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' });
    expect(json.status).toBe(415);
    expect(json.body.code).toBe('unsupported_media_type');

    const noFile = await uploadParts(ana, caseId, [{ name: 'note', data: 'just a field' }]);
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'] })]);

    const two = await uploadParts(ana, caseId, [
      { name: 'file', disposition: '; filename="a.txt"', data: randomBytes(100) },
      { name: 'file', disposition: '; filename="b.txt"', data: randomBytes(100) },
    ]);
    expect(two.status).toBe(422);
    expect(two.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'too_many_files' })]);

    const misnamed = await uploadParts(ana, caseId, [{ name: 'upload', disposition: '; filename="a.txt"', data: randomBytes(100) }]);
    expect(misnamed.status).toBe(422);
    expect(misnamed.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'upload'] })]);

    const { body } = multipart([{ name: 'file', disposition: '; filename="cut.txt"', data: randomBytes(100) }]);
    const truncated = await upload(ana, caseId, body.subarray(0, body.length - 40), { 'content-type': 'multipart/form-data; boundary=svc-test-mismatch' });
    expect(truncated.status).toBe(422);
    expect(truncated.body.detail[0].loc[0]).toBe('body');

    expect(filesOnDisk()).toEqual(before);
    expect((await call(ana, 'GET', `/cases/${caseId}/attachments`)).body.items).toHaveLength(listed);
  });

  it('answers 422 for a form cut short anywhere (no closing boundary, mid-headers, mid-file) and keeps serving', async () => {
    const before = filesOnDisk();
    const { body, contentType } = multipart([{ name: 'file', disposition: '; filename="cut.txt"', data: Buffer.from('hello world') }]);
    const text = body.toString('latin1');
    const cuts = [
      body.length - 4, // the closing boundary's dashes and CRLF
      text.lastIndexOf('--svc'), // no closing boundary at all
      text.indexOf('hello') + 5, // mid-file
      text.indexOf('filename'), // mid-part-headers
      2, // inside the opening boundary
    ];
    for (const cut of cuts) {
      const res = await upload(ana, caseId, body.subarray(0, cut), { 'content-type': contentType });
      expect(res.status, `cut at ${cut}: ${res.text}`).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'multipart_invalid' })]);
    }
    // The process is alive and nothing was stored.
    expect((await call(ana, 'GET', `/cases/${caseId}`)).status).toBe(200);
    expect(filesOnDisk()).toEqual(before);
    expect(svc.errors()).toEqual([]);
  });

  it('hides the attachments of a case the caller cannot see, and needs manage_cases to upload', async () => {
    const up = await uploadForm(ana, caseId, randomBytes(10), 'team.txt');
    expect(up.status).toBe(201);
    const secret = await uploadForm(ana, privateCaseId, randomBytes(10), 'secret.txt');
    expect(secret.status).toBe(201);
    const before = filesOnDisk();

    for (const [who, target, attachmentId] of [
      [eve, caseId, up.body.id],
      [bob, privateCaseId, secret.body.id],
    ] as const) {
      const refused = await uploadForm(who, target, randomBytes(10), 'x.txt');
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe('case_not_found');
      const list = await call(who, 'GET', `/cases/${target}/attachments`);
      expect(list.status).toBe(404);
      expect(list.body.code).toBe('case_not_found');
      const got = await download(who, target, attachmentId);
      expect(got.status).toBe(404);
      expect(errorOf(got).code).toBe('case_not_found');
    }
    const viewer = await uploadForm(vic, caseId, randomBytes(10), 'x.txt');
    expect(viewer.status).toBe(403);
    expect(filesOnDisk()).toEqual(before);
    expect((await download(ana, privateCaseId, secret.body.id)).status).toBe(200);
  });

  it('answers 404 attachment_not_found for an unknown attachment or one of another case', async () => {
    const up = await uploadForm(ana, otherCaseId, randomBytes(10), 'other.txt');
    expect(up.status).toBe(201);
    for (const attachmentId of [randomUUID(), up.body.id]) {
      const res = await download(ana, caseId, attachmentId);
      expect(res.status).toBe(404);
      expect(errorOf(res)).toMatchObject({ code: 'attachment_not_found', params: { attachment_id: attachmentId } });
    }
  });
});
