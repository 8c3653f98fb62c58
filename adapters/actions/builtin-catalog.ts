/**
 * The 34 built-in actions of SPEC.md "Action registry entry" with their connection
 * kind and risk, as SPEC.md's table gives them, and the three managed identity actions
 * (`response.identity_disable`, `_enable`, `_status`: ours, for SPEC.md's
 * `disable_identity` effect; risks as the other response families'), 37 in all. Their
 * input and output schemas are the implementation's where one exists (registry.ts), else
 * `builtin-schemas.ts`; a runbook using an action without an implementation validates,
 * and its step fails with `action_not_implemented` until the action's issue lands.
 */
import type { Risk } from './action.ts';

export type CatalogEntry = { name: string; connectionKind: string; risk: Risk };

const entry = (name: string, connectionKind: string, risk: Risk): CatalogEntry => ({ name, connectionKind, risk });

export const builtinCatalog: readonly CatalogEntry[] = [
  entry('ai.agent', 'mcp', 'read'),
  entry('ai.triage', 'internal', 'read'),
  entry('case.update', 'internal', 'write'),
  entry('detector.add_exception', 'detector', 'write'),
  entry('detector.comment_alert', 'detector', 'notify'),
  entry('detector.get_alert', 'detector', 'read'),
  entry('detector.snooze_rule', 'detector', 'write'),
  entry('banlist.block', 'ssh', 'write'),
  entry('banlist.status', 'ssh', 'read'),
  entry('banlist.unblock', 'ssh', 'write'),
  entry('enrich.reputation_a', 'http', 'read'),
  entry('enrich.reputation_b', 'http', 'read'),
  entry('http.request', 'http', 'arbitrary'),
  entry('mcp.call', 'mcp', 'arbitrary'),
  entry('notify.email', 'email_smtp', 'notify'),
  entry('notify.ticket_a', 'ticket_a', 'notify'),
  entry('notify.chat_b', 'chat_b', 'notify'),
  entry('notify.pager_b', 'pager_b', 'notify'),
  entry('notify.pager_a', 'pager_a', 'notify'),
  entry('notify.ticket_b', 'ticket_b', 'notify'),
  entry('notify.chat_a', 'chat_a', 'notify'),
  entry('notify.webhook', 'webhook', 'notify'),
  entry('response.domain_block', 'internal', 'write'),
  entry('response.domain_unblock', 'internal', 'write'),
  entry('response.domain_status', 'internal', 'read'),
  entry('response.host_isolate', 'internal', 'write'),
  entry('response.host_release', 'internal', 'write'),
  entry('response.host_status', 'internal', 'read'),
  entry('response.identity_disable', 'internal', 'write'),
  entry('response.identity_enable', 'internal', 'write'),
  entry('response.identity_status', 'internal', 'read'),
  entry('response.ip_block', 'internal', 'write'),
  entry('response.ip_unblock', 'internal', 'write'),
  entry('response.ip_status', 'internal', 'read'),
  entry('ssh.command', 'ssh', 'arbitrary'),
  entry('pipeline.await_confirmation', 'pipeline', 'read'),
  entry('pipeline.deploy_request', 'pipeline', 'write'),
];
