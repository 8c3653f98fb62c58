/**
 * A pack's integrity block (SPEC.md "Integration pack": "a trailing integrity block
 * (SHA-256 over the canonical YAML without that block)"); docs/integration-packs.md
 * "Canonical form" restates the definition:
 *
 * - The pack is one YAML 1.2 document whose top level is a mapping with unique keys, and
 *   `integrity: {algorithm: sha256, digest: <hex>}` is its last key.
 * - Its data is the document read as plain data (core schema, aliases resolved) without
 *   the `integrity` key.
 * - The canonical YAML of that data is its RFC 8785 canonical JSON text (keys sorted by
 *   UTF-16 code units, no whitespace, ECMAScript number and string forms), which is also
 *   a YAML 1.2 document, since JSON is a subset of YAML 1.2.
 * - `digest` is the lower-case hex SHA-256 of that text's UTF-8 bytes.
 *
 * So comments, key order, quoting and indentation do not change the digest; any change
 * of data does. Everything here is pure and never throws on bad input: a problem is
 * returned as a message.
 */
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { canonicalJson } from '../shared/canonical-json.ts';
import { sha256Hex } from '../shared/hash-chain.ts';

export const INTEGRITY_KEY = 'integrity';

export type PackText = { ok: true; data: Record<string, unknown>; integrity: unknown; trailing: boolean } | { ok: false; msg: string };

/** The canonical YAML of a pack's data (the document without `integrity`). */
export function canonicalPackText(data: Record<string, unknown>): string {
  const copy = { ...data };
  delete copy[INTEGRITY_KEY];
  return canonicalJson(copy);
}

/** The hex SHA-256 of the canonical YAML of a pack's data; throws a TypeError when the data is not JSON (`.inf`, `.nan`). */
export function packDigest(data: Record<string, unknown>): string {
  return sha256Hex(canonicalPackText(data));
}

/**
 * Reads pack YAML: its data, the `integrity` value (undefined when absent) and whether
 * that key is the document's last. Refuses text that is not one YAML document with a
 * mapping at its top, duplicate keys, unresolvable aliases and non-JSON values.
 */
export function readPackText(text: string): PackText {
  const doc = parseDocument(text, { uniqueKeys: true });
  const [syntaxError] = doc.errors;
  if (syntaxError) return { ok: false, msg: `invalid YAML: ${firstLine(syntaxError.message)}` };
  if (!isMap(doc.contents)) return { ok: false, msg: 'a pack is a YAML mapping' };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
    canonicalJson(data);
  } catch (error) {
    return { ok: false, msg: `invalid YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const record = data as Record<string, unknown>;
  return { ok: true, data: record, integrity: record[INTEGRITY_KEY], trailing: lastKey(doc) === INTEGRITY_KEY };
}

/**
 * The pack text with its integrity block computed and written last: an existing
 * trailing block is replaced, everything before it (comments and layout included) is
 * kept. Returns a message when the text is not a pack document or holds `integrity`
 * anywhere but last.
 */
export function withIntegrity(text: string): { ok: true; text: string; digest: string } | { ok: false; msg: string } {
  const read = readPackText(text);
  if (!read.ok) return read;
  if (read.integrity !== undefined && !read.trailing) return { ok: false, msg: 'the integrity block must be the last key of the document' };
  let body = text;
  if (read.integrity !== undefined) {
    const doc = parseDocument(text);
    const items = isMap(doc.contents) ? doc.contents.items : [];
    const start = (items.at(-1)?.key as { range?: [number, number, number] } | undefined)?.range?.[0];
    if (start === undefined) return { ok: false, msg: 'the integrity block cannot be located' };
    body = text.slice(0, start);
  }
  body = body.replace(/\s*$/, '\n');
  let digest: string;
  try {
    digest = packDigest(read.data);
  } catch (error) {
    return { ok: false, msg: error instanceof Error ? error.message : String(error) };
  }
  const built = `${body}${INTEGRITY_KEY}:\n  algorithm: sha256\n  digest: ${digest}\n`;
  // A flow-style top level cannot take a block key after it: check the result reads back.
  const again = readPackText(built);
  if (!again.ok || !again.trailing || packDigest(again.data) !== digest) return { ok: false, msg: 'write the pack as a block-style YAML mapping' };
  return { ok: true, text: built, digest };
}

function lastKey(doc: Document): string | null {
  if (!isMap(doc.contents)) return null;
  const key = doc.contents.items.at(-1)?.key;
  return isScalar(key) ? String(key.value) : null;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:$/, '');
}
