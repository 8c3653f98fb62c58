/**
 * The fields of a normalized email (SPEC.md "Webhook intake": `mailbox` takes normalized
 * email payloads; the shape is ours, docs/configuration.md "Webhook sources") read from
 * what a mail gateway or a reporting add-in sends. Each reader takes a JSON value and
 * answers the field in one form, or the problems found, located relative to the field.
 *
 * Liberal in form, strict in type: an address is a string (`jane@example.com`,
 * `Jane Doe <jane@example.com>`, `"Doe, Jane" <jane@example.com>`) or an object
 * (`{address, name}`, `{email, name}`, Microsoft Graph's `{emailAddress: {address, name}}`,
 * Office.js's `{emailAddress, displayName}`); anything else is a problem, never skipped.
 */

/** An email address, lower-cased (as the `email` observable normalizes it), and its display name. */
export type MailAddress = { address: string; name: string | null };

/** Where a reader found a problem, relative to the field it read, and what is wrong. */
export type FieldProblem = { loc: (string | number)[]; msg: string };

/** A field's value in one form, or why it cannot be read. */
export type Read<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

const ok = <T>(value: T): Read<T> => ({ ok: true, value });
const refuse = (msg: string, loc: (string | number)[] = []): Read<never> => ({ ok: false, problems: [{ loc, msg }] });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const ADDRESS_FORMS = 'must be an email address, "Name <address>" or {address, name}';

/** A bare address: one `@` with a local part before it and a domain without spaces or brackets after it. */
function bareAddress(raw: string): string | null {
  const text = raw.trim();
  const at = text.lastIndexOf('@');
  if (at < 1 || at === text.length - 1) return null;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (/[\s<>]/.test(local) || !/^[^\s@<>()[\]\\,;:"]+$/.test(domain) || domain.startsWith('.') || domain.endsWith('.')) return null;
  return text.toLowerCase();
}

/** An RFC 5322 display name with its quotes and quoted-pair escapes removed; empty is none. */
function displayName(raw: string): string | null {
  const text = raw.trim();
  const unquoted = /^"(.*)"$/s.exec(text)?.[1]?.replace(/\\(.)/g, '$1') ?? text;
  return unquoted.trim() === '' ? null : unquoted.trim();
}

/** One address written as a string: bare, or a display name followed by `<address>`. */
function addressText(raw: string): MailAddress | null {
  const angled = /^(.*)<([^<>]*)>\s*$/s.exec(raw);
  const address = bareAddress(angled ? (angled[2] ?? '') : raw);
  return address === null ? null : { address, name: angled ? displayName(angled[1] ?? '') : null };
}

/** The first present string of `names` in `o`, with its key; a present value of another type is a problem at `at` + key. */
function textField(o: Record<string, unknown>, names: string[], at: string[]): Read<{ key: string; text: string } | null> {
  for (const key of names) {
    const value = o[key];
    if (value === undefined || value === null) continue;
    return typeof value === 'string' ? ok({ key, text: value }) : refuse('must be a string', [...at, key]);
  }
  return ok(null);
}

/** One address in any accepted form (see the module docstring). */
export function readAddress(value: unknown): Read<MailAddress> {
  if (typeof value === 'string') {
    const parsed = addressText(value);
    return parsed ? ok(parsed) : refuse(ADDRESS_FORMS);
  }
  if (!isRecord(value)) return refuse(ADDRESS_FORMS);
  // Graph nests the address object under `emailAddress`; Office.js puts the address string there.
  const inner = value.emailAddress;
  const nested = isRecord(inner);
  const holder = nested ? inner : value;
  const at = nested ? ['emailAddress'] : [];
  const address = textField(holder, ['address', 'email', 'emailAddress'], at);
  if (!address.ok) return address;
  const name = textField(holder, ['name', 'display_name', 'displayName'], at);
  if (!name.ok) return name;
  const outerName = nested ? textField(value, ['displayName', 'name'], []) : ok(null);
  if (!outerName.ok) return outerName;
  if (address.value === null) return refuse('is required: the email address', [...at, 'address']);
  const bare = bareAddress(address.value.text);
  if (bare === null) return refuse('is not an email address', [...at, address.value.key]);
  const shown = name.value?.text ?? outerName.value?.text ?? null;
  return ok({ address: bare, name: shown === null ? null : displayName(shown) });
}

/**
 * Splits an address-list header (`a@x.example, "Doe, J" <j@y.example>; b@z.example`) at
 * commas and semicolons (Outlook writes those) outside quotes and angle brackets.
 */
function splitAddressList(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angled = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (quoted && ch === '\\') {
      current += ch + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '<') angled = true;
    else if (!quoted && ch === '>') angled = false;
    else if (!quoted && !angled && (ch === ',' || ch === ';')) {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts.filter((p) => p.trim() !== '');
}

/** At most this many addresses in one list field: more is no email a person reports. */
const MAX_ADDRESSES = 500;

/** Addresses: one address, a list of them, or an address-list string; absent or null is none. */
export function readAddressList(value: unknown): Read<MailAddress[]> {
  if (value === undefined || value === null) return ok([]);
  const items = typeof value === 'string' ? splitAddressList(value) : Array.isArray(value) ? value : [value];
  if (items.length > MAX_ADDRESSES) return refuse(`must hold at most ${MAX_ADDRESSES} addresses`);
  const problems: FieldProblem[] = [];
  const addresses: MailAddress[] = [];
  items.forEach((item, i) => {
    const read = readAddress(item);
    if (read.ok) addresses.push(read.value);
    // A string list has no index of its own to point at: the field is the place.
    else problems.push(...read.problems.map((p) => ({ loc: Array.isArray(value) ? [i, ...p.loc] : p.loc, msg: p.msg })));
  });
  return problems.length > 0 ? { ok: false, problems } : ok(addresses);
}

/**
 * An RFC 5322 Message-ID in its bracketed form `<id-left@id-right>`: gateways send it
 * with or without the angle brackets, and one form makes one de-duplication key.
 */
export function readMessageId(value: string): Read<string> {
  const inner = value
    .trim()
    .replace(/^<(.*)>$/s, '$1')
    .trim();
  if (inner === '' || /[\s<>]/.test(inner)) return refuse('must be an RFC 5322 Message-ID, such as <id@host.example>');
  if (inner.length > 996) return refuse('must be at most 998 characters (RFC 5322 line limit)');
  return ok(`<${inner}>`);
}

/** A date as RFC 3339 or as an RFC 5322 `Date:` header writes it, answered as RFC 3339 UTC. */
export function readMailDate(value: string): Read<string> {
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? refuse('must be an RFC 3339 or RFC 5322 date') : ok(new Date(ms).toISOString());
}

/** An RFC 5322 field name: printable US-ASCII except the colon. */
const FIELD_NAME = /^[!-9;-~]+$/;

/**
 * Header fields: an object of name to value or list of values, or a list of `{name,
 * value}` (also `{Name, Value}`, as Postmark writes them). Names are lower-cased (they are
 * case-insensitive) and every value of a name is kept, in order.
 */
export function readHeaders(value: unknown): Read<Record<string, string[]>> {
  if (value === undefined || value === null) return ok({});
  const entries: [string, unknown, (string | number)[]][] = [];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      if (!isRecord(item)) return refuse('must be a {name, value} object', [i]);
      const name = item.name ?? item.Name;
      if (typeof name !== 'string') return refuse('must name a header field', [i, 'name']);
      entries.push([name, item.value ?? item.Value, [i]]);
    }
  } else if (isRecord(value)) {
    for (const [name, v] of Object.entries(value)) entries.push([name, v, [name]]);
  } else {
    return refuse('must be an object of header values or a list of {name, value}');
  }
  // A Map, then fromEntries: a header named `__proto__` stays a header, never a prototype.
  const fields = new Map<string, string[]>();
  for (const [name, v, loc] of entries) {
    if (!FIELD_NAME.test(name)) return refuse('must name a header field', loc);
    const values = Array.isArray(v) ? v : [v];
    if (!values.every((x): x is string => typeof x === 'string')) return refuse('must be a string or a list of strings', loc);
    const key = name.toLowerCase();
    fields.set(key, [...(fields.get(key) ?? []), ...values]);
  }
  return ok(Object.fromEntries(fields));
}
