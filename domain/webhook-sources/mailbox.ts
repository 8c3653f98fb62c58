/**
 * A `mailbox` webhook source's normalized email to an alert (SPEC.md "Webhook intake":
 * `mailbox` takes normalized email payloads; the payload is documented in
 * docs/configuration.md "Webhook sources"). The source is a reported-phishing mailbox or a
 * mail gateway: each email becomes one alert through the same intake as every source.
 *
 * Mapping: external id the Message-ID (else `sha256:` of the caller's content digest, as
 * for a generic source); title `Reported email: <subject>` (at most 500 characters);
 * severity the source's default; correlation root `mail-from:<sender address>`, so later
 * emails from the same sender join the open case while different senders stay apart (a
 * sender domain would put every freemail phish into one case, a subject joins unrelated
 * `Invoice` emails). The email, with the sender's domain, the effective reply-to, a summary
 * of `Authentication-Results` and the body's URLs, is the alert's payload and matched log,
 * so runbooks read `trigger.subject`, `trigger.sender.address`, `trigger.authentication.dmarc`.
 */
import type { IncomingAlert } from '../alerts/intake.ts';
import type { Observable } from '../alerts/observables.ts';
import { readAddressList, type MailAddress } from './mail-fields.ts';

/** An attachment's metadata: the content never travels. `size` is in bytes; `sha256` lower-case hex. */
export type MailAttachment = { filename: string | null; content_type: string | null; size: number | null; sha256: string | null };

/** A normalized email, as adapters/webhook-sources/mailbox-email.ts reads it. Dates are RFC 3339 UTC. */
export type MailboxEmail = {
  /** Bracketed RFC 5322 Message-ID, or null when the sender gave none. */
  message_id: string | null;
  /** The subject as sent; empty when there was none. */
  subject: string;
  sender: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  reply_to: MailAddress[];
  /** Who reported the email, when a reporting add-in says. */
  reported_by: MailAddress | null;
  sent_at: string | null;
  received_at: string | null;
  body: { text: string | null; html: string | null };
  /** Header fields by lower-cased name, every value in order. */
  headers: Record<string, string[]>;
  attachments: MailAttachment[];
};

export type MailboxSource = { slug: string; team: string | null; defaultSeverity: string };

/** RFC 8601 results (`pass`, `fail`, `softfail`, `none`...), lower-cased; null when not reported. */
export type MailAuthentication = { spf: string | null; dkim: string | null; dmarc: string | null };

/** Most distinct URLs taken from one body: enough for any real phish, and no observable flood from a newsletter. */
export const MAX_URLS = 50;

const TITLE_MAX = 500;

/**
 * The first result of SPF, DKIM and DMARC in the first `Authentication-Results` field (the
 * one the receiving server added last, on top); SPF falls back to `Received-SPF`'s result.
 */
export function authenticationOf(headers: Record<string, string[]>): MailAuthentication {
  const results = headers['authentication-results']?.[0] ?? '';
  const method = (name: string) => new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*([a-z]+)`, 'i').exec(results)?.[1]?.toLowerCase() ?? null;
  const receivedSpf = /^\s*([a-z]+)/i.exec(headers['received-spf']?.[0] ?? '')?.[1]?.toLowerCase() ?? null;
  return { spf: method('spf') ?? receivedSpf, dkim: method('dkim'), dmarc: method('dmarc') };
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/** A URL as prose ends it: without trailing punctuation or a closing bracket it did not open. */
function trimUrl(found: string): string {
  let url = found;
  for (;;) {
    const before = url;
    url = url.replace(/[.,;:!?*]+$/, '');
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
    ] as const) {
      if (url.endsWith(close) && url.split(open).length < url.split(close).length) url = url.slice(0, -1);
    }
    if (url === before) return url;
  }
}

/**
 * The distinct http(s) URLs of the body, text first, at most MAX_URLS. In HTML they are
 * found in attributes and text alike, with `&amp;` read as `&` as a browser would.
 */
export function urlsIn(body: MailboxEmail['body']): string[] {
  const found = new Set<string>();
  for (const [text, html] of [
    [body.text, false],
    [body.html, true],
  ] as const) {
    for (const match of (text ?? '').matchAll(URL_IN_TEXT)) {
      const url = trimUrl(html ? match[0].replace(/&(amp|#0*38|#x0*26);/gi, '&') : match[0]);
      if (URL.canParse(url)) found.add(url);
      if (found.size === MAX_URLS) return [...found];
    }
  }
  return [...found];
}

/** The host of a URL as an observable: an address literal is an `ip`, a name a `domain`. */
function hostObservable(url: string): Observable | null {
  const host = new URL(url).hostname;
  if (host === '') return null;
  if (host.startsWith('[')) return { type: 'ip', value: host.slice(1, -1) };
  return { type: /^\d+\.\d+\.\d+\.\d+$/.test(host) ? 'ip' : 'domain', value: host };
}

/** `Reported email: <subject>` on one line, cut to TITLE_MAX without splitting a surrogate pair. */
function titleOf(subject: string): string {
  const oneLine = subject.replace(/\s+/g, ' ').trim();
  const title = `Reported email: ${oneLine === '' ? '(no subject)' : oneLine}`;
  if (title.length <= TITLE_MAX) return title;
  const cut = title.slice(0, TITLE_MAX - 1).replace(/[\uD800-\uDBFF]$/, '');
  return `${cut}…`;
}

/**
 * The alert of one email from `source`. `contentId` is the caller's hex digest of the
 * email, the de-duplication key of an email without a Message-ID. Observables, in order:
 * the sender's address (`email`) and domain (`domain`), the reply-to addresses, the body's
 * URLs (`url`) and their hosts (`domain` or `ip`), the attachments' `sha256` hashes; intake
 * normalizes them (adapters/commands/intake.ts `withObservables`).
 */
export function mapMailboxAlert(email: MailboxEmail, source: MailboxSource, contentId: string): IncomingAlert {
  const senderDomain = email.sender.address.slice(email.sender.address.lastIndexOf('@') + 1);
  // A gateway that passes headers but no reply_to field still names where answers go.
  const fromHeader = readAddressList(email.headers['reply-to']?.[0]);
  const replyTo = email.reply_to.length > 0 || !fromHeader.ok ? email.reply_to : fromHeader.value;
  const urls = urlsIn(email.body);
  const observables: Observable[] = [
    { type: 'email', value: email.sender.address },
    { type: 'domain', value: senderDomain },
    ...replyTo.map((a) => ({ type: 'email', value: a.address })),
    ...urls.map((url) => ({ type: 'url', value: url })),
    ...urls.flatMap((url) => hostObservable(url) ?? []),
    ...email.attachments.flatMap((a) => (a.sha256 === null ? [] : [{ type: 'sha256', value: a.sha256 }])),
  ];
  const payload: Record<string, unknown> = {
    ...email,
    sender: { ...email.sender, domain: senderDomain },
    reply_to: replyTo,
    authentication: authenticationOf(email.headers),
    urls,
  };
  return {
    source: source.slug,
    external_id: email.message_id ?? `sha256:${contentId}`,
    rule_id: null,
    title: titleOf(email.subject),
    severity: source.defaultSeverity,
    detected_at: email.received_at ?? email.sent_at,
    url: null,
    correlation_root: `mail-from:${email.sender.address}`,
    suite_correlation_id: null,
    team: source.team,
    matched_log: payload,
    observables,
    payload,
  };
}
