/**
 * What a `mailbox` webhook source takes (SPEC.md "Webhook intake": normalized email
 * payloads; the shape is ours, docs/configuration.md "Webhook sources"): one email object
 * or an array of 1..500, each read into a MailboxEmail (domain/webhook-sources/mailbox.ts).
 *
 * Mail gateways and reporting add-ins name the same things differently, so a few
 * spellings are accepted for one field (`from` or `sender`, `message_id` or Graph's
 * `internetMessageId`, `text`/`html` or `body`); when two are sent the first listed
 * below wins. Types are strict: a present field of the wrong type is refused (422 at
 * `["body", (index,) field, ...]`), never skipped. Unknown keys are ignored, and so is any
 * attachment content: only metadata is kept.
 */
import * as v from 'valibot';
import {
  readAddress,
  readAddressList,
  readHeaders,
  readMailDate,
  readMessageId,
  type MailAddress,
  type Read,
} from '../../domain/webhook-sources/mail-fields.ts';
import type { MailboxEmail } from '../../domain/webhook-sources/mailbox.ts';

/** Most attachments described per email. */
const MAX_ATTACHMENTS = 100;

/** A domain reader as a pipe step: its problems become issues at their place inside the field. */
function readAs<I, T>(read: (value: I) => Read<T>) {
  return v.rawTransform<I, T>(({ dataset, addIssue, NEVER }) => {
    const result = read(dataset.value);
    if (result.ok) return result.value;
    for (const problem of result.problems) {
      const path = problem.loc.map((key) => ({ type: 'unknown' as const, origin: 'value' as const, input: dataset.value, key, value: undefined }));
      addIssue({ message: problem.msg, ...(path.length > 0 ? { path: path as [v.IssuePathItem, ...v.IssuePathItem[]] } : {}) });
    }
    return NEVER;
  });
}

const text = v.nullish(v.string());
const messageId = v.nullish(v.pipe(v.string(), readAs(readMessageId)));
const date = v.nullish(v.pipe(v.string(), readAs(readMailDate)));
const address = v.optional(
  v.pipe(
    v.unknown(),
    readAs((value: unknown): Read<MailAddress | null> => (value === null ? { ok: true, value: null } : readAddress(value))),
  ),
);
const addresses = v.optional(v.pipe(v.unknown(), readAs(readAddressList)));

const attachment = v.object({
  filename: text,
  name: text,
  content_type: text,
  contentType: text,
  size: v.nullish(v.pipe(v.number(), v.integer(), v.minValue(0))),
  sha256: v.nullish(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/i, 'must be a sha256 hex digest'), v.toLowerCase())),
});

const wireEmail = v.object({
  message_id: messageId,
  messageId,
  internet_message_id: messageId,
  internetMessageId: messageId,
  from: address,
  sender: address,
  to: addresses,
  recipients: addresses,
  cc: addresses,
  reply_to: addresses,
  replyTo: addresses,
  reported_by: address,
  reportedBy: address,
  subject: text,
  text,
  html: text,
  // A string is the text; read as `{text}` first so a wrong type inside the object is located.
  body: v.nullish(
    v.pipe(
      v.unknown(),
      v.transform((b) => (typeof b === 'string' ? { text: b } : b)),
      v.object({ text, html: text }, 'must be a string or {text, html}'),
    ),
  ),
  date,
  sent_at: date,
  received_at: date,
  receivedAt: date,
  headers: v.optional(v.pipe(v.unknown(), readAs(readHeaders))),
  attachments: v.nullish(v.pipe(v.array(attachment), v.maxLength(MAX_ATTACHMENTS))),
});

/** The first of `values` that was sent (neither absent nor null). */
const first = <T>(...values: (T | null | undefined)[]): T | null => values.find((x) => x !== undefined && x !== null) ?? null;

/** One normalized email; the sender (`from`, or `sender`) is the one required field. */
export const mailboxEmail = v.pipe(
  wireEmail,
  v.rawTransform(({ dataset, addIssue, NEVER }): MailboxEmail => {
    const o = dataset.value;
    const sender = first(o.from, o.sender);
    if (sender === null) {
      addIssue({ message: 'is required: the address the email is from', path: [{ type: 'object', origin: 'value', input: o, key: 'from', value: undefined }] });
      return NEVER;
    }
    return {
      message_id: first(o.message_id, o.messageId, o.internet_message_id, o.internetMessageId),
      subject: o.subject ?? '',
      sender,
      to: first(o.to, o.recipients) ?? [],
      cc: o.cc ?? [],
      reply_to: first(o.reply_to, o.replyTo) ?? [],
      reported_by: first(o.reported_by, o.reportedBy),
      sent_at: first(o.date, o.sent_at),
      received_at: first(o.received_at, o.receivedAt),
      body: { text: first(o.text, o.body?.text), html: first(o.html, o.body?.html) },
      headers: o.headers ?? {},
      attachments: (o.attachments ?? []).map((a) => ({
        filename: first(a.filename, a.name),
        content_type: first(a.content_type, a.contentType),
        size: a.size ?? null,
        sha256: a.sha256 ?? null,
      })),
    };
  }),
);

/** A `mailbox` source's body: one email, or an array of 1..500 (as a generic source takes). */
export const mailboxBody = v.union([v.pipe(v.array(mailboxEmail), v.minLength(1), v.maxLength(500)), mailboxEmail]);
