/**
 * notify.email against a real SMTP server on 127.0.0.1 (the `smtp-server` package,
 * SPEC.md "Generic actions"): the mail arrives with sender, recipients, subject, text and
 * a Message-ID stable per attempt; AUTH uses the connection secret; a relay without
 * STARTTLS is refused unless the connection says `tls: none`; SMTP rejections are
 * retryable for 4xx and final for 5xx; previews never show the password.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliveryIdOf, type ActionContext, type ActionFailure, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createNotifyEmail } from '../../../adapters/actions/notify-email.ts';
import { selfSignedCertificate } from '../../support/tls-cert.ts';

const notifyEmail = createNotifyEmail(null);

type Mail = { from: string | undefined; to: string[]; data: string; user: string | null };

const PASSWORD = 'smtp-password-never-shown';
let server: SMTPServer;
let port = 0;
let mails: Mail[] = [];
let rejectWith: number | null = null;

beforeAll(async () => {
  server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'soc-bot' && auth.password === PASSWORD) return callback(null, { user: auth.username });
      return callback(new Error('bad credentials'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (rejectWith !== null) {
          const error = new Error('rejected') as Error & { responseCode: number };
          error.responseCode = rejectWith;
          return callback(error);
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
          user: (session.user as string | undefined) ?? null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  mails = [];
  rejectWith = null;
});

const connection = (config: Record<string, unknown>, secret: string | null = PASSWORD): ResolvedConnection => ({
  id: 'c1',
  kind: 'email_smtp',
  name: 'smtp-relay',
  base_url: `smtp://127.0.0.1:${port}`,
  config,
  secret,
  previous_secret: null,
  bot_token: null,
});
const context = (conn: ResolvedConnection, attempt = 1, pass = 1): ActionContext => ({
  runId: 'run-1',
  stepId: 'mail',
  attempt,
  deliveryId: deliveryIdOf('run-1', 'mail', pass, null),
  caseId: null,
  connection: conn,
  signal: AbortSignal.timeout(10_000),
  cases: null,
  approval: null,
  resume: null,
  now: () => new Date(),
});
const step = v.parse(notifyEmail.input, {
  to: ['soc@example.com'],
  cc: ['lead@example.com'],
  subject: 'SVC-12: host isolated',
  body: 'WS-042 is isolated.\nTTL 4 h.',
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ActionFailure,
  );

describe('notify.email', () => {
  it('delivers the mail through a relay without TLS when the connection allows it, with AUTH from the secret', async () => {
    const out = await notifyEmail.execute(step, context(connection({ from: 'svc@example.com', username: 'soc-bot', tls: 'none' })));
    expect(out.message_id).toMatch(/^<[A-Za-z0-9_-]{32}@svc\.notify>$/);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ from: 'svc@example.com', to: ['soc@example.com', 'lead@example.com'], user: 'soc-bot' });
    expect(mails[0]?.data).toContain('Subject: SVC-12: host isolated');
    expect(mails[0]?.data).toContain('WS-042 is isolated.');
    expect(mails[0]?.data).toContain(`Message-ID: ${out.message_id}`);
    // The re-execution after a worker crash (next attempt, same pass) resends the same message; a goto pass is a new one.
    const again = await notifyEmail.execute(step, context(connection({ from: 'svc@example.com', tls: 'none' }), 2));
    expect(again.message_id).toBe(out.message_id);
    const nextPass = await notifyEmail.execute(step, context(connection({ from: 'svc@example.com', tls: 'none' }), 2, 2));
    expect(nextPass.message_id).not.toBe(out.message_id);
  });

  it('refuses to send in clear text when STARTTLS is required (the default) and the relay offers none', async () => {
    const error = await failure(notifyEmail.execute(step, context(connection({ from: 'svc@example.com' }))));
    expect(error).toMatchObject({ type: 'tls_required', retryable: false });
    expect(mails).toHaveLength(0);
  });

  it('sorts SMTP rejections: 4xx retryable, 5xx final, naming host and code and never the password', async () => {
    rejectWith = 451;
    const soft = await failure(notifyEmail.execute(step, context(connection({ from: 'svc@example.com', username: 'soc-bot', tls: 'none' }))));
    expect(soft).toMatchObject({ type: 'smtp_rejected', retryable: true, message: 'notify.email: 127.0.0.1 answered SMTP 451' });
    rejectWith = 554;
    const hard = await failure(notifyEmail.execute(step, context(connection({ from: 'svc@example.com', username: 'soc-bot', tls: 'none' }))));
    expect(hard).toMatchObject({ type: 'smtp_rejected', retryable: false });
    expect(`${soft?.message} ${hard?.message}`).not.toContain(PASSWORD);
  });

  it('refuses a bad connection or a multi-line subject, and previews without the password', async () => {
    expect(await failure(notifyEmail.execute(step, context(connection({ tls: 'none' }))))).toMatchObject({ type: 'connection_invalid', retryable: false });
    expect(
      await failure(notifyEmail.execute(step, context({ ...connection({ from: 'svc@example.com' }), base_url: 'https://mail.example.com' }))),
    ).toMatchObject({ type: 'connection_invalid' });
    expect(v.safeParse(notifyEmail.input, { to: ['a@example.com'], subject: 'hi\r\nBcc: x@evil.example', body: 'x' }).success).toBe(false);
    const preview = await notifyEmail.preview(step, context(connection({ from: 'svc@example.com', username: 'soc-bot' })));
    expect(preview).toMatchObject({
      smtp: `smtp://127.0.0.1:${port}`,
      from: 'svc@example.com',
      to: ['soc@example.com'],
      auth: { user: 'soc-bot', pass: '[redacted]' },
    });
    expect(JSON.stringify(preview)).not.toContain(PASSWORD);
    expect(mails).toHaveLength(0);
  });
});

describe('notify.email over implicit TLS (smtps://)', () => {
  const certificate = selfSignedCertificate();
  let tlsServer: SMTPServer;
  let tlsPort = 0;
  const delivered: string[] = [];
  beforeAll(async () => {
    tlsServer = new SMTPServer({
      secure: true,
      key: certificate.key,
      cert: certificate.cert,
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          delivered.push(session.envelope.rcptTo.map((r) => r.address).join(','));
          callback();
        });
      },
    });
    // The refused client hangs up mid-handshake; the server reports that as an error event.
    tlsServer.on('error', () => {});
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    tlsPort = (tlsServer.server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((resolve) => tlsServer.close(() => resolve())));
  const smtps = (): ResolvedConnection => ({ ...connection({ from: 'svc@example.com' }, null), base_url: `smtps://127.0.0.1:${tlsPort}` });

  it('refuses a relay whose certificate no trusted CA signed, finally, and sends nothing', async () => {
    const error = await failure(createNotifyEmail(null).execute(step, context(smtps())));
    expect(error).toMatchObject({ type: 'tls_failed', retryable: false });
    expect(delivered).toEqual([]);
  });

  it('delivers through a relay whose certificate SVC_OUTBOUND_CA_FILE trusts', async () => {
    const out = await createNotifyEmail(certificate.cert).execute(step, context(smtps()));
    expect(out.message_id).toMatch(/@svc\.notify>$/);
    expect(delivered).toEqual(['soc@example.com,lead@example.com']);
  });
});
