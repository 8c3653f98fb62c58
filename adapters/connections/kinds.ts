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
