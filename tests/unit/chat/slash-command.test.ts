/** Link codes and the slash command text (domain/chat). */
import { describe, expect, it } from 'vitest';
import { formatLinkCode, normalizeLinkCode } from '../../../domain/chat/link-code.ts';
import { parseSlashCommand } from '../../../domain/chat/slash-command.ts';

describe('link codes', () => {
  it('spell ten Crockford characters as XXXXX-XXXXX and read back forgivingly', () => {
    const code = formatLinkCode(Uint8Array.from([0, 1, 2, 3, 4, 31, 30, 29, 28, 255]));
    expect(code).toBe('01234-ZYXWZ');
    expect(normalizeLinkCode(code)).toBe('01234ZYXWZ');
    expect(normalizeLinkCode(' o1234 zyxwz ')).toBe('01234ZYXWZ');
    expect(normalizeLinkCode('Il234-ZYXWZ')).toBe('11234ZYXWZ');
    expect(normalizeLinkCode('01234-ZYXW')).toBeNull();
    expect(normalizeLinkCode('01234-ZYXWU')).toBeNull();
    expect(() => formatLinkCode(new Uint8Array(9))).toThrow(RangeError);
  });
});

describe('parseSlashCommand', () => {
  it('reads link, unlink and help', () => {
    expect(parseSlashCommand('link abcde-12345')).toEqual({ kind: 'link', code: 'ABCDE12345' });
    expect(parseSlashCommand('  LINK  ABCDE 12345 ')).toEqual({ kind: 'link', code: 'ABCDE12345' });
    expect(parseSlashCommand('link')).toEqual({ kind: 'bad_code' });
    expect(parseSlashCommand('link not-a-code!')).toEqual({ kind: 'bad_code' });
    expect(parseSlashCommand('unlink')).toEqual({ kind: 'unlink' });
    expect(parseSlashCommand('unlink everyone')).toEqual({ kind: 'help' });
    expect(parseSlashCommand('')).toEqual({ kind: 'help' });
    expect(parseSlashCommand('approve 42')).toEqual({ kind: 'help' });
  });
});
