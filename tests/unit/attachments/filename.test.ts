/**
 * Upload names and types are display metadata (adapters/attachments/filename.ts): the
 * name loses its path, controls and bidi overrides, and is capped; the download's
 * Content-Disposition carries it only as a quoted ASCII fallback plus an RFC 5987
 * `filename*` (docs/configuration.md "Attachments and evidence").
 */
import { describe, expect, it } from 'vitest';
import { contentDisposition, declaredContentType, FALLBACK_FILENAME, FILENAME_MAX, sanitizeFilename } from '../../../adapters/attachments/filename.ts';

describe('sanitizeFilename', () => {
  it('keeps only the last path component, for either slash', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\Users\\ana\\report.pdf')).toBe('report.pdf');
  });

  it('drops control characters, CR/LF and bidi overrides, and trims', () => {
    expect(sanitizeFilename(' report\r\n.pdf\u0000 ')).toBe('report.pdf');
    expect(sanitizeFilename('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(sanitizeFilename('a\u0085b\u007f')).toBe('ab');
  });

  it('keeps non-ASCII names, NFC-normalized', () => {
    expect(sanitizeFilename('re\u0301sume\u0301 日本.txt')).toBe('résumé 日本.txt');
  });

  it('caps the length in characters without splitting one', () => {
    const long = '😀'.repeat(FILENAME_MAX + 10);
    const capped = sanitizeFilename(long);
    expect(Array.from(capped)).toHaveLength(FILENAME_MAX);
    expect(capped).toBe('😀'.repeat(FILENAME_MAX));
  });

  it('names an empty, dot or dot-dot name after the fallback', () => {
    for (const raw of [null, undefined, '', '   ', '.', '..', 'dir/', '\r\n']) expect(sanitizeFilename(raw)).toBe(FALLBACK_FILENAME);
  });
});

describe('declaredContentType', () => {
  it('keeps a well-formed type, lower-cased, without parameters', () => {
    expect(declaredContentType('Text/HTML; charset=utf-8')).toBe('text/html');
    expect(declaredContentType('application/vnd.ms-excel')).toBe('application/vnd.ms-excel');
  });

  it('falls back to application/octet-stream for anything else', () => {
    for (const raw of [null, '', 'html', 'text/html\r\nX-Evil: 1', 'a/b/c']) expect(declaredContentType(raw)).toBe('application/octet-stream');
  });
});

describe('contentDisposition', () => {
  it('quotes a plain name and repeats it as filename*', () => {
    expect(contentDisposition('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  });

  it('replaces quotes, backslashes and non-ASCII in the fallback and percent-encodes filename*', () => {
    expect(contentDisposition('a"b\\c é.txt')).toBe(`attachment; filename="a_b_c _.txt"; filename*=UTF-8''a%22b%5Cc%20%C3%A9.txt`);
  });

  it('encodes the characters RFC 5987 leaves out of attr-char', () => {
    expect(contentDisposition("it's (1)*.txt")).toBe(`attachment; filename="it's (1)*.txt"; filename*=UTF-8''it%27s%20%281%29%2A.txt`);
  });

  it('never lets a control character reach the header', () => {
    const header = contentDisposition('a\r\nSet-Cookie: x=1\u0000.txt');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may be left.
    expect(header).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(header).toContain('filename="a__Set-Cookie: x=1_.txt"');
    expect(header).toContain("filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1%00.txt");
  });

  it('gives a non-ASCII name an ASCII-only header', () => {
    expect(contentDisposition('日本.txt')).toMatch(/^[\x20-\x7e]+$/);
  });
});
