/**
 * What a `mailbox` source takes (adapters/webhook-sources/mailbox-email.ts): one email or a
 * batch, the spellings gateways and reporting add-ins use, strict types, unknown keys and
 * attachment content dropped, and every refusal located at its field.
 */
import { describe, expect, it } from 'vitest';
import { parseBody } from '../../../adapters/http/validation.ts';
import { mailboxBody } from '../../../adapters/webhook-sources/mailbox-email.ts';
import type { ValidationFailed } from '../../../domain/shared/errors.ts';

const parse = (body: unknown) => parseBody(mailboxBody, body);
const refusal = (body: unknown) => {
  try {
    parse(body);
  } catch (error) {
    return (error as ValidationFailed).issues.map(({ loc, msg }) => ({ loc, msg }));
  }
  return null;
};

describe('mailbox body', () => {
  it('reads the documented shape', () => {
    const hash = 'AB'.repeat(32);
    expect(
      parse({
        message_id: '<m-1@mail.example>',
        from: 'Billing <billing@portal.example>',
        to: ['ana@corp.example'],
        cc: 'Bo <bo@corp.example>',
        reply_to: { address: 'pay@collector.example' },
        reported_by: 'ana@corp.example',
        subject: 'Invoice',
        text: 'Pay at https://portal.example/pay',
        html: '<p>Pay</p>',
        date: 'Sun, 01 Mar 2026 10:14:00 +0100',
        received_at: '2026-03-01T09:14:05Z',
        headers: { 'Authentication-Results': 'mx; dmarc=fail' },
        attachments: [{ filename: 'invoice.html', content_type: 'text/html', size: 10, sha256: hash, content: 'PGh0bWw+' }],
        gateway_event_id: 'ignored',
      }),
    ).toEqual({
      message_id: '<m-1@mail.example>',
      subject: 'Invoice',
      sender: { address: 'billing@portal.example', name: 'Billing' },
      to: [{ address: 'ana@corp.example', name: null }],
      cc: [{ address: 'bo@corp.example', name: 'Bo' }],
      reply_to: [{ address: 'pay@collector.example', name: null }],
      reported_by: { address: 'ana@corp.example', name: null },
      sent_at: '2026-03-01T09:14:00.000Z',
      received_at: '2026-03-01T09:14:05.000Z',
      body: { text: 'Pay at https://portal.example/pay', html: '<p>Pay</p>' },
      headers: { 'authentication-results': ['mx; dmarc=fail'] },
      attachments: [{ filename: 'invoice.html', content_type: 'text/html', size: 10, sha256: hash.toLowerCase() }],
    });
  });

  it('takes the spellings a Graph-based add-in sends, and nulls for absent fields', () => {
    const graph = parse({
      internetMessageId: '<g-1@mail.example>',
      sender: { emailAddress: { address: 'x@evil.example', name: 'X' } },
      recipients: [{ emailAddress: { address: 'ana@corp.example', name: 'Ana' } }],
      replyTo: [{ emailAddress: { address: 'y@evil.example' } }],
      reportedBy: { emailAddress: 'ana@corp.example', displayName: 'Ana' },
      subject: null,
      body: { html: '<a href="https://evil.example/">x</a>' },
      receivedAt: '2026-03-01T09:14:05Z',
      sent_at: null,
      headers: [{ name: 'Received-SPF', value: 'fail' }],
      attachments: [{ name: 'a.zip', contentType: 'application/zip' }],
    });
    expect(graph).toMatchObject({
      message_id: '<g-1@mail.example>',
      subject: '',
      sender: { address: 'x@evil.example', name: 'X' },
      to: [{ address: 'ana@corp.example', name: 'Ana' }],
      reply_to: [{ address: 'y@evil.example', name: null }],
      reported_by: { address: 'ana@corp.example', name: 'Ana' },
      sent_at: null,
      received_at: '2026-03-01T09:14:05.000Z',
      body: { text: null, html: '<a href="https://evil.example/">x</a>' },
      headers: { 'received-spf': ['fail'] },
      attachments: [{ filename: 'a.zip', content_type: 'application/zip', size: null, sha256: null }],
    });
  });

  it('prefers the canonical spelling when two are sent, and reads a string body as text', () => {
    expect(parse({ from: 'a@x.example', sender: 'b@x.example', message_id: 'one@x', messageId: 'two@x', body: 'plain' })).toMatchObject({
      sender: { address: 'a@x.example' },
      message_id: '<one@x>',
      body: { text: 'plain', html: null },
    });
  });

  it('takes a batch of 1..500', () => {
    expect(parse([{ from: 'a@x.example' }, { from: 'b@x.example' }])).toHaveLength(2);
    expect(refusal([])).toEqual([{ loc: ['body'], msg: expect.stringContaining('length') }]);
    expect(refusal(Array.from({ length: 501 }, () => ({ from: 'a@x.example' })))).toEqual([{ loc: ['body'], msg: expect.stringContaining('length') }]);
  });

  it('refuses wrong types and unreadable values at their field', () => {
    expect(refusal({ subject: 'no sender' })).toEqual([{ loc: ['body', 'from'], msg: 'is required: the address the email is from' }]);
    expect(refusal([{ from: 'a@x.example' }, { from: 'nobody' }])).toEqual([
      { loc: ['body', 1, 'from'], msg: expect.stringContaining('must be an email address') },
    ]);
    expect(refusal({ from: 'a@x.example', subject: 5 })?.[0]?.loc).toEqual(['body', 'subject']);
    expect(refusal({ from: 'a@x.example', to: ['b@x.example', 7] })?.[0]?.loc).toEqual(['body', 'to', 1]);
    expect(refusal({ from: 'a@x.example', body: { text: 5 } })?.[0]?.loc).toEqual(['body', 'body', 'text']);
    expect(refusal({ from: 'a@x.example', body: 5 })).toEqual([{ loc: ['body', 'body'], msg: 'must be a string or {text, html}' }]);
    expect(refusal({ from: 'a@x.example', message_id: 'a b' })?.[0]?.loc).toEqual(['body', 'message_id']);
    expect(refusal({ from: 'a@x.example', date: 'yesterday' })?.[0]?.loc).toEqual(['body', 'date']);
    expect(refusal({ from: 'a@x.example', headers: { 'X-Id': 5 } })?.[0]?.loc).toEqual(['body', 'headers', 'X-Id']);
    expect(refusal({ from: 'a@x.example', attachments: [{ size: '10', sha256: 'zz' }] })?.map((p) => p.loc)).toEqual([
      ['body', 'attachments', 0, 'size'],
      ['body', 'attachments', 0, 'sha256'],
    ]);
    expect(refusal('an email')).toEqual([{ loc: ['body'], msg: expect.any(String) }]);
  });
});
