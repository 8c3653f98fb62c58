/**
 * A `mailbox` source's normalized email to an alert (domain/webhook-sources/mailbox.ts) and
 * the field readers behind the payload (domain/webhook-sources/mail-fields.ts): given an
 * email as plain data, when it is mapped, then the alert, its observables and its payload.
 */
import { describe, expect, it } from 'vitest';
import { readAddress, readAddressList, readHeaders, readMailDate, readMessageId } from '../../../domain/webhook-sources/mail-fields.ts';
import { authenticationOf, mapMailboxAlert, MAX_URLS, urlsIn, type MailboxEmail, type MailboxSource } from '../../../domain/webhook-sources/mailbox.ts';

const source: MailboxSource = { slug: 'phish-reports', team: 'blue', defaultSeverity: 'high' };
const hash = 'a'.repeat(64);

/** A reported phish as a gateway normalizes it. */
const email = (over: Partial<MailboxEmail> = {}): MailboxEmail => ({
  message_id: '<20260301.4711@mail.billing-portal.example>',
  subject: 'Your invoice is overdue',
  sender: { address: 'billing@billing-portal.example', name: 'Billing' },
  to: [{ address: 'ana@corp.example', name: 'Ana' }],
  cc: [],
  reply_to: [{ address: 'payments@collector.example', name: null }],
  reported_by: { address: 'ana@corp.example', name: null },
  sent_at: '2026-03-01T09:14:00.000Z',
  received_at: '2026-03-01T09:14:05.000Z',
  body: {
    text: 'Pay now at https://billing-portal.example/pay?id=7. Or see (https://en.example/wiki/Fee_(finance)).',
    html: '<a href="https://billing-portal.example/pay?id=7&amp;src=mail">Pay</a> <img src="http://185.220.101.4/t.gif">',
  },
  headers: {
    'authentication-results': [
      'mx.corp.example; spf=pass smtp.mailfrom=billing-portal.example; dkim=none; dmarc=FAIL (p=reject) header.from=billing-portal.example',
    ],
  },
  attachments: [{ filename: 'invoice.pdf.html', content_type: 'text/html', size: 2048, sha256: hash }],
  ...over,
});

describe('mapMailboxAlert', () => {
  it('keys the alert on the Message-ID, titles it from the subject and correlates on the sender', () => {
    const alert = mapMailboxAlert(email(), source, 'digest');
    expect(alert).toMatchObject({
      source: 'phish-reports',
      external_id: '<20260301.4711@mail.billing-portal.example>',
      rule_id: null,
      title: 'Reported email: Your invoice is overdue',
      severity: 'high',
      detected_at: '2026-03-01T09:14:05.000Z',
      url: null,
      correlation_root: 'mail-from:billing@billing-portal.example',
      team: 'blue',
    });
    expect(alert.matched_log).toBe(alert.payload);
  });

  it('finds the sender, the reply-to, the URLs with their hosts and the attachment hashes as observables', () => {
    expect(mapMailboxAlert(email(), source, 'digest').observables).toEqual([
      { type: 'email', value: 'billing@billing-portal.example' },
      { type: 'domain', value: 'billing-portal.example' },
      { type: 'email', value: 'payments@collector.example' },
      { type: 'url', value: 'https://billing-portal.example/pay?id=7' },
      { type: 'url', value: 'https://en.example/wiki/Fee_(finance)' },
      { type: 'url', value: 'https://billing-portal.example/pay?id=7&src=mail' },
      { type: 'url', value: 'http://185.220.101.4/t.gif' },
      { type: 'domain', value: 'billing-portal.example' },
      { type: 'domain', value: 'en.example' },
      { type: 'domain', value: 'billing-portal.example' },
      { type: 'ip', value: '185.220.101.4' },
      { type: 'sha256', value: hash },
    ]);
  });

  it('puts the email in the payload with what runbooks ask of it', () => {
    const { payload } = mapMailboxAlert(email(), source, 'digest');
    expect(payload).toMatchObject({
      subject: 'Your invoice is overdue',
      sender: { address: 'billing@billing-portal.example', name: 'Billing', domain: 'billing-portal.example' },
      reported_by: { address: 'ana@corp.example', name: null },
      authentication: { spf: 'pass', dkim: 'none', dmarc: 'fail' },
      urls: expect.arrayContaining(['http://185.220.101.4/t.gif']),
      attachments: [{ filename: 'invoice.pdf.html', content_type: 'text/html', size: 2048, sha256: hash }],
    });
  });

  it('falls back to the content digest without a Message-ID and to the sent date without a received one', () => {
    const alert = mapMailboxAlert(email({ message_id: null, received_at: null }), source, 'abc123');
    expect(alert).toMatchObject({ external_id: 'sha256:abc123', detected_at: '2026-03-01T09:14:00.000Z' });
  });

  it('takes the reply-to from the headers when the field is empty, and ignores a header it cannot read', () => {
    const fromHeader = mapMailboxAlert(email({ reply_to: [], headers: { 'reply-to': ['Collections <Dues@Collector.example>'] } }), source, 'd');
    expect(fromHeader.payload.reply_to).toEqual([{ address: 'dues@collector.example', name: 'Collections' }]);
    const unreadable = mapMailboxAlert(email({ reply_to: [], headers: { 'reply-to': ['not an address'] } }), source, 'd');
    expect(unreadable.payload.reply_to).toEqual([]);
  });

  it('titles an email without a subject, on one line, cut at 500 characters', () => {
    expect(mapMailboxAlert(email({ subject: '  ' }), source, 'd').title).toBe('Reported email: (no subject)');
    expect(mapMailboxAlert(email({ subject: 'Re:\r\n\tyour   order' }), source, 'd').title).toBe('Reported email: Re: your order');
    const long = mapMailboxAlert(email({ subject: '😀'.repeat(400) }), source, 'd').title;
    expect(long.length).toBeLessThanOrEqual(500);
    expect(long.endsWith('😀…')).toBe(true);
  });
});

describe('urlsIn', () => {
  it('trims the punctuation prose puts after a URL and keeps brackets the URL opened', () => {
    expect(urlsIn({ text: 'See https://a.example/x, then https://b.example/(y). Or [https://c.example/z]!', html: null })).toEqual([
      'https://a.example/x',
      'https://b.example/(y)',
      'https://c.example/z',
    ]);
  });

  it('keeps the distinct URLs only, at most MAX_URLS', () => {
    const text = Array.from({ length: MAX_URLS + 10 }, (_, i) => `https://h${i}.example/ https://h0.example/`).join(' ');
    const urls = urlsIn({ text, html: null });
    expect(urls).toHaveLength(MAX_URLS);
    expect(new Set(urls).size).toBe(MAX_URLS);
  });

  it('finds nothing in an empty body or in text without a scheme', () => {
    expect(urlsIn({ text: null, html: null })).toEqual([]);
    expect(urlsIn({ text: 'www.example.com and ftp://files.example', html: '' })).toEqual([]);
  });
});

describe('authenticationOf', () => {
  it('reads the first Authentication-Results field, else SPF from Received-SPF', () => {
    expect(authenticationOf({ 'authentication-results': ['mx; dkim=pass header.d=a.example; dmarc=pass', 'older; dmarc=fail'] })).toEqual({
      spf: null,
      dkim: 'pass',
      dmarc: 'pass',
    });
    expect(authenticationOf({ 'received-spf': ['SoftFail (mx: domain of x does not designate ...)'] })).toEqual({ spf: 'softfail', dkim: null, dmarc: null });
    expect(authenticationOf({})).toEqual({ spf: null, dkim: null, dmarc: null });
  });
});

describe('mail field readers', () => {
  it('reads an address written as a string or as any accepted object', () => {
    const jane = { address: 'jane@example.com', name: 'Jane Doe' };
    expect(readAddress('Jane Doe <Jane@Example.COM>')).toEqual({ ok: true, value: jane });
    expect(readAddress('"Doe, Jane \\"JD\\"" <jane@example.com>')).toEqual({ ok: true, value: { address: 'jane@example.com', name: 'Doe, Jane "JD"' } });
    expect(readAddress('jane@example.com')).toEqual({ ok: true, value: { address: 'jane@example.com', name: null } });
    expect(readAddress({ address: 'jane@example.com', name: 'Jane Doe' })).toEqual({ ok: true, value: jane });
    expect(readAddress({ email: 'jane@example.com', display_name: 'Jane Doe' })).toEqual({ ok: true, value: jane });
    expect(readAddress({ emailAddress: { address: 'jane@example.com', name: 'Jane Doe' } })).toEqual({ ok: true, value: jane });
    expect(readAddress({ emailAddress: 'jane@example.com', displayName: 'Jane Doe' })).toEqual({ ok: true, value: jane });
  });

  it('refuses what is no address, naming the place', () => {
    const forms = 'must be an email address, "Name <address>" or {address, name}';
    expect(readAddress('Jane Doe')).toEqual({ ok: false, problems: [{ loc: [], msg: forms }] });
    expect(readAddress(42)).toEqual({ ok: false, problems: [{ loc: [], msg: forms }] });
    expect(readAddress({ address: 7 })).toEqual({ ok: false, problems: [{ loc: ['address'], msg: 'must be a string' }] });
    expect(readAddress({ emailAddress: { name: 'x' } })).toEqual({
      ok: false,
      problems: [{ loc: ['emailAddress', 'address'], msg: 'is required: the email address' }],
    });
    expect(readAddress({ address: 'two words@example.com' })).toEqual({ ok: false, problems: [{ loc: ['address'], msg: 'is not an email address' }] });
    expect(readAddress({ email: 'nobody' })).toEqual({ ok: false, problems: [{ loc: ['email'], msg: 'is not an email address' }] });
    expect(readAddress({ emailAddress: { address: 'a@x.example', name: 5 } })).toEqual({
      ok: false,
      problems: [{ loc: ['emailAddress', 'name'], msg: 'must be a string' }],
    });
  });

  it('reads an address list from a string, a list or one address', () => {
    expect(readAddressList('a@x.example, "Doe, J" <j@y.example>; b@z.example')).toEqual({
      ok: true,
      value: [
        { address: 'a@x.example', name: null },
        { address: 'j@y.example', name: 'Doe, J' },
        { address: 'b@z.example', name: null },
      ],
    });
    expect(readAddressList({ address: 'a@x.example' })).toEqual({ ok: true, value: [{ address: 'a@x.example', name: null }] });
    expect(readAddressList(null)).toEqual({ ok: true, value: [] });
    expect(readAddressList(['a@x.example', 'nope'])).toMatchObject({ ok: false, problems: [{ loc: [1] }] });
  });

  it('brackets a Message-ID and refuses one with spaces', () => {
    expect(readMessageId(' abc@host.example ')).toEqual({ ok: true, value: '<abc@host.example>' });
    expect(readMessageId('<abc@host.example>')).toEqual({ ok: true, value: '<abc@host.example>' });
    expect(readMessageId('<a b>')).toMatchObject({ ok: false });
    expect(readMessageId('<>')).toMatchObject({ ok: false });
  });

  it('reads RFC 3339 and RFC 5322 dates as RFC 3339 UTC', () => {
    expect(readMailDate('Sun, 01 Mar 2026 10:14:00 +0100')).toEqual({ ok: true, value: '2026-03-01T09:14:00.000Z' });
    expect(readMailDate('2026-03-01T09:14:00Z')).toEqual({ ok: true, value: '2026-03-01T09:14:00.000Z' });
    expect(readMailDate('last Tuesday')).toMatchObject({ ok: false });
  });

  it('reads headers as an object or a {name, value} list, lower-casing names and keeping every value', () => {
    expect(readHeaders({ 'Received-SPF': 'pass', Received: ['a', 'b'] })).toEqual({ ok: true, value: { 'received-spf': ['pass'], received: ['a', 'b'] } });
    expect(
      readHeaders([
        { Name: 'X-Mailer', Value: 'm' },
        { name: 'x-mailer', value: 'n' },
      ]),
    ).toEqual({ ok: true, value: { 'x-mailer': ['m', 'n'] } });
    const proto = readHeaders({ ['__proto__']: 'x' });
    expect(proto.ok && Object.getPrototypeOf(proto.value)).toBe(Object.prototype);
    expect(readHeaders({ 'Bad Name': 'x' })).toEqual({ ok: false, problems: [{ loc: ['Bad Name'], msg: 'must name a header field' }] });
    expect(readHeaders({ a: 5 })).toEqual({ ok: false, problems: [{ loc: ['a'], msg: 'must be a string or a list of strings' }] });
    expect(readHeaders('x')).toMatchObject({ ok: false });
  });
});
