/**
 * A connection's destination (adapters/connections/destination.ts; issue 46): which fields
 * count as a move, that audited values never carry URL credentials, and when a ticket
 * connection's `mirror_private_cases` is turned off.
 */
import { describe, expect, it } from 'vitest';
import { configAfterMove, destinationChanges } from '../../../adapters/connections/destination.ts';

const jira = { base_url: 'https://a.atlassian.net', config: { email: 'bot@example.com', project_key: 'SEC', mirror_private_cases: true } };

describe('destinationChanges', () => {
  it('names base_url and each destination config key that moved, and nothing else', () => {
    expect(destinationChanges('ticket_a', jira, { ...jira, config: { ...jira.config, email: 'other@example.com', poll_interval_s: 600 } })).toEqual([]);
    expect(destinationChanges('ticket_a', jira, { base_url: 'https://b.atlassian.net', config: { ...jira.config, project_key: 'OPS' } })).toEqual([
      { field: 'base_url', old: 'https://a.atlassian.net', new: 'https://b.atlassian.net' },
      { field: 'config.project_key', old: 'SEC', new: 'OPS' },
    ]);
    const ssh = { base_url: null, config: { host: 'bastion.internal', port: 22, username: 'svc' } };
    expect(destinationChanges('ssh', ssh, { ...ssh, config: { ...ssh.config, port: 2222 } })).toEqual([{ field: 'config.port', old: 22, new: 2222 }]);
    expect(destinationChanges('ssh', ssh, { ...ssh, config: { ...ssh.config, host: undefined } })).toEqual([
      { field: 'config.host', old: 'bastion.internal', new: null },
    ]);
  });

  it('gives URLs without userinfo, query and fragment, where credentials may sit', () => {
    const before = { base_url: 'https://svc:hunter2@a.example/api?token=s3cr3t#x', config: {} };
    const after = { base_url: 'https://b.example/api?api_key=k3y', config: {} };
    const [change] = destinationChanges('webhook', before, after);
    expect(change).toEqual({ field: 'base_url', old: 'https://a.example/api', new: 'https://b.example/api' });
    expect(JSON.stringify(change)).not.toMatch(/hunter2|s3cr3t|k3y/);
  });
});

describe('configAfterMove', () => {
  it('turns mirror_private_cases off when a ticket connection moves and the request does not name it', () => {
    expect(configAfterMove('ticket_a', jira, { ...jira, base_url: 'https://b.atlassian.net' }, undefined)).toEqual({
      ...jira.config,
      mirror_private_cases: false,
    });
    const moved = { base_url: jira.base_url, config: { ...jira.config, project_key: 'OPS' } };
    expect(configAfterMove('ticket_a', jira, moved, { email: 'bot@example.com', project_key: 'OPS' })).toEqual({
      ...moved.config,
      mirror_private_cases: false,
    });
  });

  it('keeps what the request sets, and the config as it is when nothing moved or the kind does not mirror', () => {
    const after = { base_url: 'https://b.atlassian.net', config: { ...jira.config } };
    expect(configAfterMove('ticket_a', jira, after, { mirror_private_cases: true })).toBe(after.config);
    const unmoved = { ...jira, config: { ...jira.config, poll_interval_s: 600 } };
    expect(configAfterMove('ticket_a', jira, unmoved, undefined)).toBe(unmoved.config);
    const hook = { base_url: 'https://a.example', config: { mirror_private_cases: true } };
    const movedHook = { base_url: 'https://b.example', config: hook.config };
    expect(configAfterMove('webhook', hook, movedHook, undefined)).toBe(movedHook.config);
  });
});
