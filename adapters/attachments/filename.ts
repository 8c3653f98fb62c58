/**
 * Attachment names and types as the client sent them are display metadata only
 * (docs/configuration.md "Attachments and evidence"): cleaned on the way in, and sent
 * back on download only inside a Content-Disposition header built to be safe
 * (RFC 6266 with an RFC 5987 `filename*`), never as a path or a content type.
 */

/** Longest kept filename, characters (code points). */
export const FILENAME_MAX = 255;
/** The name of an upload whose name is empty once cleaned. */
export const FALLBACK_FILENAME = 'attachment';

// C0 and C1 controls, DEL, bidirectional overrides that disguise an extension, and lone
// surrogates (which no header encoding can carry).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips.
const unsafe = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\p{Cs}]/gu;

/**
 * The display name of an uploaded `raw` filename: the last path component (either
 * slash), NFC-normalized, without control or bidi-override characters, trimmed, at most
 * FILENAME_MAX characters; `.`, `..` and empty names become FALLBACK_FILENAME.
 * @example sanitizeFilename('C:\\temp\\..\\report\r\n.pdf') === 'report.pdf'
 */
export function sanitizeFilename(raw: string | null | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const clean = base.normalize('NFC').replace(unsafe, '').trim();
  const capped = Array.from(clean).slice(0, FILENAME_MAX).join('').trim();
  return capped === '' || capped === '.' || capped === '..' ? FALLBACK_FILENAME : capped;
}

/**
 * The media type of an upload as declared, lower-cased without parameters when it is
 * a well-formed `type/subtype`, else `application/octet-stream`. Kept as metadata only:
 * downloads are always served as `application/octet-stream`.
 */
export function declaredContentType(raw: string | null | undefined): string {
  const type = (raw ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return /^[a-z0-9!#$&^_.+-]{1,63}\/[a-z0-9!#$&^_.+-]{1,127}$/.test(type) ? type : 'application/octet-stream';
}

/**
 * `Content-Disposition: attachment` for `filename` (RFC 6266 section 4.3): an ASCII
 * `filename` fallback in which quotes, backslashes, controls and non-ASCII characters
 * are `_`, and the exact name as `filename*=UTF-8''<percent-encoded>` (RFC 5987
 * attr-chars only).
 * @example contentDisposition('a"b é.txt') === `attachment; filename="a_b _.txt"; filename*=UTF-8''a%22b%20%C3%A9.txt`
 */
export function contentDisposition(filename: string): string {
  const fallback = Array.from(filename, (ch) => (/^[\x20-\x7e]$/.test(ch) && ch !== '"' && ch !== '\\' ? ch : '_')).join('');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
