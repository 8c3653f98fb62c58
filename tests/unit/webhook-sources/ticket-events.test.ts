/**
 * Ticket webhook bodies as ticket updates (adapters/webhook-sources/ticket-events.ts): a
 * Jira comment event built around the published comment object (ADF body), a status
 * changelog, and ServiceNow business-rule records built from the published Table API record.
 */
import { describe, expect, it } from 'vitest';
import { adfText, parseTicketAWebhook, parseTicketBWebhook } from '../../../adapters/webhook-sources/ticket-events.ts';
import type { ValidationFailed } from '../../../domain/shared/errors.ts';
import { readFixtureJson } from '../../support/fixtures.ts';

const comment = readFixtureJson<Record<string, any>>('vendors', 'jira', 'rest_api3_POST_issue_comment.201.json');
const issue = readFixtureJson<Record<string, any>>('vendors', 'jira', 'rest_api3_GET_issue.200.json');
const record = readFixtureJson<{ result: Record<string, any> }>('vendors', 'servicenow', 'table_GET_incident_by_sys_id.200.json').result;

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as ValidationFailed).issues.map((i) => i.loc);
  }
  return null;
};

describe('parseTicketAWebhook', () => {
  it('reads a comment event with the published comment object', () => {
    const update = parseTicketAWebhook({ webhookEvent: 'comment_created', issue: { id: issue.id, key: issue.key, fields: {} }, comment });
    expect(update).toEqual({
      provider: 'ticket_a',
      remote_id: issue.id,
      remote_key: issue.key,
      status: null,
      comments: [
        {
          id: '10000',
          text: expect.stringMatching(/^Lorem ipsum dolor sit amet.*posuere augue semper\.$/),
          author: 'Mia Krystof',
          created_at: '2021-01-17T12:34:00.000+0000',
        },
      ],
    });
  });

  it('takes the status from the changelog, else from the issue', () => {
    const items = [
      { field: 'summary', toString: 'x' },
      { field: 'status', fromString: 'To Do', toString: 'Done' },
    ];
    expect(
      parseTicketAWebhook({
        webhookEvent: 'jira:issue_updated',
        issue: { id: 10002, key: 'ED-1', fields: { status: { name: 'In Progress' } } },
        changelog: { items },
      }),
    ).toMatchObject({ remote_id: '10002', status: 'Done', comments: [] });
    expect(parseTicketAWebhook({ webhookEvent: 'jira:issue_updated', issue: { id: '10002', fields: { status: { name: 'In Progress' } } } }).status).toBe(
      'In Progress',
    );
    // An item without its own toString is not refused for Object.prototype.toString.
    expect(
      parseTicketAWebhook({
        webhookEvent: 'jira:issue_updated',
        issue: { id: '10002', fields: { status: { name: 'Done' } } },
        changelog: { items: [{ field: 'resolution' }, { field: 'status' }] },
      }).status,
    ).toBe('Done');
    expect(
      parseTicketAWebhook({ webhookEvent: 'jira:issue_updated', issue: { id: '10002', fields: { status: { name: 'In Progress' } } }, comment }).comments,
    ).toEqual([]);
  });

  it('refuses a body that is not a Jira webhook', () => {
    expect(refusal(() => parseTicketAWebhook({ webhookEvent: 'jira:issue_updated' }))).toEqual([['body', 'issue']]);
    expect(refusal(() => parseTicketAWebhook({ webhookEvent: 'comment_created', issue: { id: '1' }, comment: { body: 'x' } }))).toEqual([
      ['body', 'comment', 'id'],
    ]);
  });
});

describe('adfText', () => {
  it('joins text, mentions and breaks, one block per line', () => {
    const doc = {
      type: 'doc',
      version: 1,
      content: [
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'Hi ' },
            { type: 'mention', attrs: { id: 'x', text: '@Jane' } },
            { type: 'hardBreak' },
            { type: 'text', text: 'done' },
          ],
        },
        { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'one' }] }] }] },
      ],
    };
    expect(adfText(doc)).toBe('Hi @Jane\ndone\none');
    expect(adfText('plain')).toBe('plain');
    expect(adfText(42)).toBe('');
  });
});

describe('parseTicketBWebhook', () => {
  it('reads a business rule post of the published record, with and without result and comment id', () => {
    const posted = { ...record, comments: 'Reimaged.', comment_sys_id: 'c0ffee00c0ffee00c0ffee00c0ffee00', sys_updated_by: 'beth.anglin' };
    expect(parseTicketBWebhook({ result: posted })).toEqual({
      provider: 'ticket_b',
      remote_id: record.sys_id,
      remote_key: record.number,
      status: record.state,
      comments: [{ id: 'c0ffee00c0ffee00c0ffee00c0ffee00', text: 'Reimaged.', author: 'beth.anglin', created_at: record.sys_updated_on }],
    });
    expect(parseTicketBWebhook({ ...record, comments: 'No id, not taken.' }).comments).toEqual([]);
    expect(
      parseTicketBWebhook({
        sys_id: { value: 'abc', display_value: 'abc' },
        state: { value: '6', display_value: 'Resolved' },
        number: { value: 'x', display_value: 'INC1' },
      }),
    ).toMatchObject({ remote_id: 'abc', status: '6', remote_key: 'INC1' });
  });

  it('refuses a record without its sys_id', () => {
    expect(refusal(() => parseTicketBWebhook({ result: { number: 'INC1' } }))).toEqual([['body', 'result', 'sys_id']]);
    expect(refusal(() => parseTicketBWebhook({ sys_id: '' }))).toEqual([['body', 'sys_id']]);
  });
});
