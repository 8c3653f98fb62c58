/** The connection kinds this service has (SPEC.md "Connection": "Kinds seen"); integration packs may need only these. */
export const connectionKinds = [
  'detector',
  'pipeline',
  'chat_a',
  'ticket_a',
  'ticket_b',
  'pager_a',
  'pager_b',
  'chat_b',
  'email_smtp',
  'imap',
  'mailbox_graph',
  'mcp',
  'object_storage',
  'webhook',
  'http',
  'ssh',
] as const;

/** One of `connectionKinds`. */
export type ConnectionKind = (typeof connectionKinds)[number];

/** Whether a stored `kind` is one of `connectionKinds`. */
export const isConnectionKind = (kind: string): kind is ConnectionKind => (connectionKinds as readonly string[]).includes(kind);
