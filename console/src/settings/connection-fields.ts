/**
 * The connection form's rules, pure (tests/unit/console/connection-fields.test.ts): the
 * kinds a connection may be (the document's own list, checked whole at compile time), the
 * `config` object typed as JSON, and a probe's answer (`POST /connections/<id>/test`) in
 * words an administrator acts on.
 */
import type { paths } from '../api-types.ts';

/** A connection kind, as `POST /connections` takes it. */
export type ConnectionKind = paths['/connections']['post']['requestBody']['content']['application/json']['kind'];
/** The answer of `POST /connections/{id}/test`. */
export type ProbeResult = paths['/connections/{id}/test']['post']['responses'][200]['content']['application/json'];

/** Every kind the service takes (SPEC.md "Connection"), in the order the form offers them. */
export const CONNECTION_KINDS = [
  'http',
  'webhook',
  'ssh',
  'email_smtp',
  'imap',
  'mailbox_graph',
  'mcp',
  'object_storage',
  'detector',
  'pipeline',
  'chat_a',
  'chat_b',
  'ticket_a',
  'ticket_b',
  'pager_a',
  'pager_b',
] as const satisfies readonly ConnectionKind[];

// A kind the document adds and the form lacks fails to compile here.
const everyKind: Exclude<ConnectionKind, (typeof CONNECTION_KINDS)[number]> extends never ? true : never = true;
void everyKind;

/** `text` as a connection's `config`: a JSON object (empty text is `{}`), or why it is not one. */
export function parseConfig(text: string): { config: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { config: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Config is not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'Config must be a JSON object, such as {"host": "gw-01", "port": 22}.' };
  return { config: value as Record<string, unknown> };
}

/** A probe's answer in words: what was checked and how it went. */
export function probeWords(result: ProbeResult): string {
  const facts = Object.entries(result.details)
    .map(([key, value]) => `${key.replace(/_/g, ' ')}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
  if (result.ok) return `Reached (${result.probe}) in ${result.latency_ms} ms${facts ? `. ${facts}` : ''}.`;
  const why = result.error ? `${result.error.type.replace(/_/g, ' ')}: ${result.error.message}` : 'no reason given';
  return `Failed (${result.probe}) after ${result.latency_ms} ms. ${why}${facts ? `. ${facts}` : ''}.`;
}
