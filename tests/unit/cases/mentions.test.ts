import { describe, expect, it } from 'vitest';
import { mentionedEmails } from '../../../domain/cases/mentions.ts';

describe('mentionedEmails', () => {
  it('finds @<email> mentions, lower-cased and de-duplicated, in order', () => {
    expect(mentionedEmails('@Ana@Example.com please check, cc @bob@corp.example.org and @ana@example.com.')).toEqual([
      'ana@example.com',
      'bob@corp.example.org',
    ]);
  });

  it('ignores plain addresses, handles and addresses inside words', () => {
    expect(mentionedEmails('mail ana@example.com, ping @ana, see x@bob@example.com')).toEqual([]);
  });

  it('reads a mention at the start, after punctuation and before punctuation', () => {
    expect(mentionedEmails('@a@x.io,(@b@y.io) "@c@z.co"!')).toEqual(['a@x.io', 'b@y.io', 'c@z.co']);
  });
});
