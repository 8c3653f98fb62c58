/**
 * A vendor's XML answer read into nested objects, so a custom action's declared outputs
 * are extracted from it by their `$.a.b[0]` paths exactly as from a JSON answer (SPEC.md
 * "Managed containment actions", "Exit and verdict handling": "XML answers are read into
 * nested objects (attributes as `@name`, text as `#text`, repeated child as a list; a
 * document with a DTD stays text)"; docs/configuration.md "Custom actions").
 *
 * The shape: the document is `{<root tag>: <root>}`. An element with attributes or child
 * elements is an object: each attribute as `@<name>`, each child under its tag name, its
 * own text as `#text`. A child tag that repeats is a list in document order; one that
 * occurs once is not a list. An element with text only and no attributes is that text as
 * a plain string (`<status>ok</status>` reads as `status: 'ok'`), and an empty one is ''.
 * Namespace prefixes stay in the names (`soap:Body`, `@xmlns:a`). Every value is a
 * string, trimmed: no number or boolean coercion, so the declared output's type check
 * decides. Comments, processing instructions and the XML declaration are left out; CDATA
 * is text.
 *
 * Safety: only the five predefined entities (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`) and
 * character references of characters XML allows are decoded, in one pass (`&amp;lt;`
 * reads `&lt;`); any other entity reference stays as written. A document with a
 * `<!DOCTYPE` (or an `<!ENTITY`) anywhere is not parsed at all, so no DTD, internal or
 * external entity, or entity expansion (billion laughs) is ever processed: it stays
 * text. So does a document the parser's validator finds not well-formed, one nested
 * deeper than 100 elements, one with an element named `__proto__` or `constructor`
 * (which the parser refuses), and one without exactly one root element.
 */
import { type EntityDecoderOptions, XMLParser } from 'fast-xml-parser';

/** The answer as read, or why it stays text: `dtd` (a DOCTYPE or ENTITY declaration) or `malformed`. */
export type XmlAnswer = { read: true; document: Record<string, unknown> } | { read: false; reason: 'dtd' | 'malformed'; detail: string };

const DECLARATION = /<!(?:DOCTYPE|ENTITY)/i;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/g;

/** XML 1.0 section 2.2 `Char`: what a character reference may stand for. */
const xmlChar = (cp: number): boolean =>
  cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);

// The parser's own decoder knows more than XML does (HTML names, DTD entities); this one
// decodes the predefined entities and character references only and takes no others.
const entityDecoder: EntityDecoderOptions = {
  setExternalEntities: () => {},
  addInputEntities: () => {},
  reset: () => {},
  setXmlVersion: () => {},
  decode: (text) =>
    text.replace(REFERENCE, (whole, name: string | undefined, decimal: string | undefined, hex: string | undefined) => {
      if (name !== undefined) return PREDEFINED[name] ?? whole;
      const cp = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
      return xmlChar(cp) ? String.fromCodePoint(cp) : whole;
    }),
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: false,
  processEntities: true,
  entityDecoder,
});

/** Reads `text` as an XML answer (see the module comment for the shape); never throws. */
export function readXmlAnswer(text: string): XmlAnswer {
  if (DECLARATION.test(text)) return { read: false, reason: 'dtd', detail: 'the document declares a DTD or an entity, which is never processed' };
  let document: unknown;
  try {
    document = parser.parse(text, true);
  } catch (error) {
    return { read: false, reason: 'malformed', detail: error instanceof Error ? error.message : String(error) };
  }
  if (document === null || typeof document !== 'object' || Object.keys(document).length !== 1) {
    return { read: false, reason: 'malformed', detail: 'the document has not exactly one root element' };
  }
  return { read: true, document: document as Record<string, unknown> };
}

/** Whether a Content-Type header names XML: `application/xml`, `text/xml` or a `+xml` type, parameters aside. */
export function isXmlContentType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/xml' || type === 'text/xml' || /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+xml$/.test(type);
}
