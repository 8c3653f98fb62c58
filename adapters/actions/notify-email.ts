/**
 * `notify.email` over SMTP with nodemailer (SPEC.md "Generic actions"; issue 5): input
 * `{to, cc?, subject, body}` (plain text), output `{message_id}`.
 *
 * The `email_smtp` connection: `base_url` `smtp://host[:port]` (STARTTLS, port 587 by
 * default) or `smtps://host[:port]` (implicit TLS, 465); `config.from` (required sender),
 * `config.username` (optional; the connection secret is the password),
 * `config.tls`: `required` (default: no STARTTLS, no send) or `none` (a local relay
 * without TLS). Certificates are checked against Node's roots and SVC_OUTBOUND_CA_FILE's
 * CA (`extraCa`). Relays are admin-configured and usually internal, so this edge does not
 * go through the HTTP SSRF guard. The Message-ID is the delivery id (ActionContext.deliveryId),
 * the same on a retry and on the re-execution after a worker crash, so a receiver can tell a
 * redelivery; a goto pass and each `for_each` item send a new message. Failures name the host and the SMTP code, never the
 * password or the body; 4xx replies and connection errors are retryable, 5xx and an
 * untrusted certificate (`tls_failed`) final.
 */
import type { Transporter } from 'nodemailer';
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition, type ResolvedConnection } from './action.ts';
import { REDACTED, requireConnection } from './outbound-http.ts';
import { trustedCa } from '../outbound/trusted-ca.ts';

const NAME = 'notify.email';
const address = v.pipe(v.string(), v.trim(), v.email('must be an email address'), v.maxLength(320));
const input = v.strictObject({
  to: v.pipe(v.array(address), v.minLength(1, 'needs at least one recipient'), v.maxLength(100)),
  cc: v.optional(v.pipe(v.array(address), v.maxLength(100))),
  subject: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(500), v.regex(/^[^\r\n]*$/, 'must be one line')),
  body: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100_000)),
});
type NotifyEmailInput = v.InferOutput<typeof input>;

type SmtpTarget = { host: string; port: number; secure: boolean; from: string; username: string | null; tlsRequired: boolean; connectionName: string };

function smtpTarget(context: Pick<ActionContext, 'connection'>): SmtpTarget {
  const connection = requireConnection(NAME, context, 'email_smtp');
  const invalid = (why: string) => new ActionFailure('connection_invalid', `${NAME}: connection '${connection.name}' ${why}`, false);
  let url: URL;
  try {
    url = new URL(connection.base_url);
  } catch {
    throw invalid('has a base_url that is not smtp:// or smtps://');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw invalid('has a base_url that is not smtp:// or smtps://');
  const from = connection.config.from;
  if (typeof from !== 'string' || !v.is(address, from)) throw invalid('needs config.from, the sender address');
  const tls = connection.config.tls ?? 'required';
  if (tls !== 'required' && tls !== 'none') throw invalid("has config.tls other than 'required' or 'none'");
  const secure = url.protocol === 'smtps:';
  const username = typeof connection.config.username === 'string' ? connection.config.username : null;
  return {
    host: url.hostname,
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    from,
    username,
    tlsRequired: tls === 'required',
    connectionName: connection.name,
  };
}

/** `<delivery id@svc.notify>`: stable per message, like the webhook id. */
function messageId(context: ActionContext): string {
  return `<${context.deliveryId}@svc.notify>`;
}

/** `notify.email`, trusting `extraCa` (SVC_OUTBOUND_CA_FILE's PEM text, or null) besides Node's roots. */
export const createNotifyEmail = (extraCa: string | null): ActionDefinition<NotifyEmailInput, { message_id: string }> => ({
  name: NAME,
  connectionKind: 'email_smtp',
  risk: 'notify',
  input,
  output: v.object({ message_id: v.string() }),
  async execute(step, context) {
    const target = smtpTarget(context);
    return withTransport(target, context.connection?.secret ?? null, extraCa, context.signal, async (transport) => {
      const id = messageId(context);
      await transport.sendMail({ from: target.from, to: step.to, cc: step.cc, subject: step.subject, text: step.body, messageId: id });
      return { message_id: id };
    });
  },
  async preview(step, context) {
    const target = smtpTarget(context);
    return {
      smtp: `${target.secure ? 'smtps' : 'smtp'}://${target.host}:${target.port}`,
      from: target.from,
      to: step.to,
      cc: step.cc ?? [],
      subject: step.subject,
      body: step.body,
      auth: target.username === null ? null : { user: target.username, pass: REDACTED },
    };
  },
});

/**
 * The connection probe of an `email_smtp` connection (POST /connections/<id>/test):
 * connects, upgrades to TLS as `config.tls` demands and authenticates, then quits
 * without sending (nodemailer's verify). Throws the action's ActionFailures.
 */
export async function probeSmtp(connection: ResolvedConnection, signal: AbortSignal, extraCa: string | null): Promise<Record<string, unknown>> {
  const target = smtpTarget({ connection });
  await withTransport(target, connection.secret, extraCa, signal, (transport) => transport.verify());
  return {
    smtp: `${target.secure ? 'smtps' : 'smtp'}://${target.host}:${target.port}`,
    tls: target.secure || target.tlsRequired ? 'required' : 'none',
    authenticated: target.username !== null,
  };
}

/** A transport to `target` for `use`, closed afterwards; nodemailer errors become ActionFailures naming the host and SMTP code only. */
async function withTransport<T>(
  target: SmtpTarget,
  password: string | null,
  extraCa: string | null,
  signal: AbortSignal,
  use: (transport: Transporter) => Promise<T>,
): Promise<T> {
  // Loaded on first use, not at every start of the service (docs/operations.md "The compiled build").
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    requireTLS: !target.secure && target.tlsRequired,
    ignoreTLS: !target.secure && !target.tlsRequired,
    ...(extraCa !== null && { tls: { ca: trustedCa(extraCa) } }),
    ...(target.username !== null && { auth: { user: target.username, pass: password ?? '' } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const abort = () => transport.close();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await use(transport);
  } catch (error) {
    if (signal.aborted) throw new ActionFailure('timeout', `${NAME}: sending through ${target.host} aborted by the step deadline or cancellation`, true, error);
    const { code, responseCode } = error as { code?: string; responseCode?: number };
    if (code === 'ETLS')
      throw new ActionFailure('tls_required', `${NAME}: ${target.host} did not upgrade to TLS with STARTTLS and config.tls is 'required'`, false, error);
    // An untrusted or mismatched certificate will not change by retrying: final, like the IMAP probe's `tls_failed`.
    if (/certificate|CERT_|SELF_SIGNED|ALTNAME/i.test(`${code ?? ''} ${(error as Error).message ?? ''}`))
      throw new ActionFailure('tls_failed', `${NAME}: no trusted TLS with ${target.host} (its certificate is not trusted)`, false, error);
    if (typeof responseCode === 'number')
      throw new ActionFailure('smtp_rejected', `${NAME}: ${target.host} answered SMTP ${responseCode}`, responseCode < 500, error);
    throw new ActionFailure('network_error', `${NAME}: cannot reach ${target.host}`, true, error);
  } finally {
    signal.removeEventListener('abort', abort);
    transport.close();
  }
}
