/**
 * Evidence pins (SPEC.md "Case sub-resources": Evidence pin; domain/cases/evidence.ts):
 * the rules that need no lookup, and the Case aggregate recording pins and attachments
 * (given these events, when this command, then these events).
 */
import { describe, expect, it } from 'vitest';
import { caseDecider, type CaseEvent } from '../../../domain/cases/index.ts';
import { evidenceShapeIssues, evidenceUrl, EVIDENCE_URL_MAX } from '../../../domain/cases/evidence.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { fold } from '../../../domain/shared/messages.ts';

const caseId = '00000000-0000-4000-8000-000000000001';
const now = '2026-11-23T10:00:00.000Z';
const actor = { userId: '00000000-0000-4000-8000-0000000000aa', email: 'ana@example.com' };
const opened: CaseEvent = {
  type: 'case.opened',
  data: {
    case_id: caseId,
    key: 'SVC-1',
    number: 1,
    title: 't',
    description: null,
    severity: 'high',
    tags: [],
    status: 'new',
    team: 'blue',
    private: false,
    correlation_key: null,
    opened_at: now,
    opened_by: actor.email,
    opened_by_id: actor.userId,
  },
};
const given = (events: CaseEvent[]) => fold(caseDecider, events);

describe('evidenceUrl', () => {
  it('accepts absolute http and https URLs, normalized', () => {
    expect(evidenceUrl('https://Example.COM/a b')).toBe('https://example.com/a%20b');
    expect(evidenceUrl('http://10.0.0.1:8080/x?y=1')).toBe('http://10.0.0.1:8080/x?y=1');
  });

  it('refuses relative, other schemes, hostless and over-long URLs', () => {
    for (const raw of [
      '/relative',
      'example.com',
      'javascript:alert(1)',
      'ftp://example.com/',
      'file:///etc/passwd',
      'http://',
      `https://e.com/${'a'.repeat(EVIDENCE_URL_MAX)}`,
    ]) {
      expect(evidenceUrl(raw), raw).toBeNull();
    }
  });
});

describe('evidenceShapeIssues', () => {
  it('wants ref_id and no url for every kind but link', () => {
    for (const kind of ['timeline', 'observable', 'attachment', 'action_log'] as const) {
      expect(evidenceShapeIssues({ kind, ref_id: '1' })).toEqual([]);
      expect(evidenceShapeIssues({ kind }).map((i) => i.loc)).toEqual([['body', 'ref_id']]);
      expect(evidenceShapeIssues({ kind, ref_id: '1', url: 'https://e.com' }).map((i) => i.loc)).toEqual([['body', 'url']]);
    }
  });

  it('wants a valid url and no ref_id for a link', () => {
    expect(evidenceShapeIssues({ kind: 'link', url: 'https://e.com/x' })).toEqual([]);
    expect(evidenceShapeIssues({ kind: 'link' })).toEqual([{ loc: ['body', 'url'], msg: 'a link pin requires url', type: 'missing' }]);
    expect(evidenceShapeIssues({ kind: 'link', url: 'mailto:a@b.c' }).map((i) => i.loc)).toEqual([['body', 'url']]);
    expect(evidenceShapeIssues({ kind: 'link', url: 'https://e.com', ref_id: '1' }).map((i) => i.loc)).toEqual([['body', 'ref_id']]);
  });
});

describe('case aggregate: attachments and pins', () => {
  it('records an attachment with what the server computed', () => {
    const events = caseDecider.decide(
      { type: 'add_attachment', attachmentId: 'att-1', filename: 'a.txt', contentType: 'text/plain', size: 3, sha256: 'ab'.repeat(32), actor, now },
      given([opened]),
    );
    expect(events).toEqual([
      {
        type: 'case.attachment_added',
        data: {
          case_id: caseId,
          attachment_id: 'att-1',
          filename: 'a.txt',
          content_type: 'text/plain',
          size: 3,
          sha256: 'ab'.repeat(32),
          uploaded_by: actor.email,
          at: now,
        },
      },
    ]);
  });

  it('records a pin with its kind, reference and note', () => {
    const events = caseDecider.decide(
      { type: 'pin_evidence', pinId: 'pin-1', kind: 'link', refId: null, url: 'https://e.com/', note: 'why', actor, now },
      given([opened]),
    );
    expect(events).toEqual([
      {
        type: 'case.evidence_pinned',
        data: { case_id: caseId, pin_id: 'pin-1', kind: 'link', ref_id: null, url: 'https://e.com/', note: 'why', pinned_by: actor.email, at: now },
      },
    ]);
  });

  it('refuses both on a case that does not exist', () => {
    expect(() => caseDecider.decide({ type: 'pin_evidence', pinId: 'p', kind: 'timeline', refId: '1', url: null, note: 'n', actor, now }, given([]))).toThrow(
      DomainError,
    );
  });
});
