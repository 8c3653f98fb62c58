/**
 * What the ticketing products send to a `ticket_a` / `ticket_b` webhook source (SPEC.md
 * "Webhook intake"), in the neutral shape of domain/tickets/mirror.ts.
 *
 * - ticket_a, Jira Cloud webhooks: an envelope naming the event (`webhookEvent`, such as
 *   `jira:issue_updated`, `comment_created`, `comment_updated`), the `issue` (`id`, `key`,
 *   `fields.status.name`), for an update the `changelog` (`items` of `{field, fromString,
 *   toString}`), and for a comment event the `comment` (`id`, `body`, `author.displayName`,
 *   `created`). Comment bodies are Atlassian Document Format or plain text.
 * - ticket_b, a ServiceNow business rule posting the record as the Table API shows it:
 *   `{result: {sys_id, number, state, comments, comment_sys_id, sys_updated_by}}`, or the
 *   same fields at the top level. A field may be a plain string or a `{value,
 *   display_value}` object. Only a comment with its `comment_sys_id` is taken: without
 *   the journal entry's id it could not be matched later, and would be taken twice.
 *
 * A body of another shape is refused with ValidationFailed (422) naming the field.
 */
import * as v from 'valibot';
import type { RemoteTicketUpdate } from '../../domain/tickets/mirror.ts';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { issuesAt } from '../shared/issues.ts';

/** Longest comment text taken, characters (webhooks and polls alike). */
const MAX_COMMENT = 20_000;

const id = v.pipe(v.union([v.pipe(v.string(), v.minLength(1), v.maxLength(100)), v.pipe(v.number(), v.integer())], 'must be an id'), v.transform(String));

const jiraWebhook = v.object({
  webhookEvent: v.pipe(v.string(), v.minLength(1)),
  issue: v.object({
    id,
    key: v.optional(v.nullable(v.string())),
    fields: v.optional(v.nullable(v.object({ status: v.optional(v.nullable(v.object({ name: v.string() }))) }))),
  }),
  // `toString` is read by hand below: a schema key of that name would find Object.prototype.toString on an item without one.
  changelog: v.optional(v.nullable(v.object({ items: v.array(v.looseObject({ field: v.optional(v.nullable(v.string())) })) }))),
  comment: v.optional(
    v.nullable(
      v.object({
        id,
        body: v.optional(v.unknown()),
        author: v.optional(v.nullable(v.object({ displayName: v.optional(v.nullable(v.string())) }))),
        created: v.optional(v.nullable(v.string())),
      }),
    ),
  ),
});

/** A ServiceNow value: a string, or a reference / display-value object (webhooks and polls alike). */
export const snowValue = v.union([v.string(), v.object({ value: v.optional(v.nullable(v.string())), display_value: v.optional(v.nullable(v.string())) })]);
const snowRecord = v.object({
  sys_id: snowValue,
  number: v.optional(v.nullable(snowValue)),
  state: v.optional(v.nullable(snowValue)),
  comments: v.optional(v.nullable(snowValue)),
  comment_sys_id: v.optional(v.nullable(snowValue)),
  sys_updated_by: v.optional(v.nullable(snowValue)),
  sys_updated_on: v.optional(v.nullable(snowValue)),
});

function parse<S extends v.GenericSchema>(schema: S, body: unknown, at: (string | number)[]): v.InferOutput<S> {
  const result = v.safeParse(schema, body);
  if (!result.success) throw new ValidationFailed(issuesAt(at, result.issues));
  return result.output;
}

type AdfNode = { type?: unknown; text?: unknown; attrs?: { text?: unknown }; content?: unknown };

/** The plain text of an Atlassian Document (or a string): text nodes, mentions by name, blocks on their own lines. */
export function adfText(body: unknown): string {
  if (typeof body === 'string') return body;
  const walk = (node: AdfNode): string => {
    if (node.type === 'text' && typeof node.text === 'string') return node.text;
    if (node.type === 'hardBreak') return '\n';
    if (node.type === 'mention' && typeof node.attrs?.text === 'string') return node.attrs.text;
    const children = Array.isArray(node.content) ? (node.content as AdfNode[]) : [];
    const inline = node.type === 'paragraph' || node.type === 'heading' || node.type === 'listItem';
    return children.map(walk).join(inline || node.type === undefined ? '' : '\n');
  };
  return body !== null && typeof body === 'object' ? walk(body as AdfNode).trim() : '';
}

/** `text` cut to the longest comment taken. */
export const capped = (text: string) => (text.length > MAX_COMMENT ? text.slice(0, MAX_COMMENT) : text);

/** A Jira Cloud webhook delivery as a ticket update. @throws ValidationFailed at `body.*`. */
export function parseTicketAWebhook(body: unknown): RemoteTicketUpdate {
  const event = parse(jiraWebhook, body, ['body']);
  const item = event.changelog?.items.find((i) => i.field === 'status');
  const to: unknown = item && Object.hasOwn(item, 'toString') ? (item as Record<string, unknown>).toString : null;
  const changed = typeof to === 'string' ? to : null;
  const status = changed ?? event.issue.fields?.status?.name ?? null;
  const comment = event.webhookEvent === 'comment_created' || event.webhookEvent === 'comment_updated' ? event.comment : null;
  const text = comment ? capped(adfText(comment.body)) : '';
  return {
    provider: 'ticket_a',
    remote_id: event.issue.id,
    remote_key: event.issue.key ?? null,
    status,
    comments: comment && text !== '' ? [{ id: comment.id, text, author: comment.author?.displayName ?? null, created_at: comment.created ?? null }] : [],
  };
}

/** The text of a ServiceNow value: its `value` (or its `display_value` when `display`), null when absent. */
export const snowText = (value: v.InferOutput<typeof snowValue> | null | undefined, display = false): string | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  return (display ? (value.display_value ?? value.value) : (value.value ?? value.display_value)) ?? null;
};

/** A ServiceNow business rule's post as a ticket update. @throws ValidationFailed at `body.*` (or `body.result.*`). */
export function parseTicketBWebhook(body: unknown): RemoteTicketUpdate {
  const wrapped = body !== null && typeof body === 'object' && 'result' in body;
  const record = parse(snowRecord, wrapped ? (body as { result: unknown }).result : body, wrapped ? ['body', 'result'] : ['body']);
  const sysId = snowText(record.sys_id);
  if (!sysId) throw new ValidationFailed([{ loc: [...(wrapped ? ['body', 'result'] : ['body']), 'sys_id'], msg: 'must not be empty', type: 'value_error' }]);
  const comment = snowText(record.comments)?.trim() ?? '';
  const commentId = snowText(record.comment_sys_id);
  return {
    provider: 'ticket_b',
    remote_id: sysId,
    remote_key: snowText(record.number, true),
    status: snowText(record.state),
    comments:
      comment !== '' && commentId
        ? [{ id: commentId, text: capped(comment), author: snowText(record.sys_updated_by, true), created_at: snowText(record.sys_updated_on) }]
        : [],
  };
}
