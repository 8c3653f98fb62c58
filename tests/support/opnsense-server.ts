/**
 * A local stand-in of the OPNsense firewall alias API on 127.0.0.1 (the vendor the
 * `firewall_alias_a` adapter of SPEC.md "Managed containment actions", "Shipped adapter
 * packs", follows), answering as opnsense/core's controllers do
 * (src/opnsense/mvc/app/controllers/OPNsense/Firewall/Api/AliasUtilController.php and
 * AliasController.php, Base/ApiControllerBase.php and Base/UIModelGrid.php; the literal
 * answers are ../shared/fixtures/vendors/opnsense/alias_util_responses.json):
 *
 * - Auth: `Authorization: <scheme> <base64(key:secret)>`; the controller splits the header
 *   on the first space and never looks at the scheme, so any word works and clients send
 *   `Basic`. Anything else: 401 `{status: 401, message: "Authentication Failed"}`.
 * - Bodies: `application/json` is read into the POST fields (an empty JSON body is 400
 *   `{message: "Invalid JSON syntax", status: 400}`; unparsable JSON leaves no fields),
 *   `application/x-www-form-urlencoded` as form fields.
 * - `POST /api/firewall/alias_util/add/<alias> {address}`: `{status: "not_an_address"}`
 *   when the address holds a character outside `0-9 a-f : . / _` (lower case only, as the
 *   controller's pattern); `{status: "failed", status_msg: "non existing alias <alias>"}`
 *   for an alias that does not exist; else `{status: "done"}`, also when the address is
 *   there already (no duplicate signal). A network alias stores the address with `/32` or
 *   `/128` when it has no mask, a host alias as given (current releases; older ones masked
 *   both). Not a POST, or no `address`: `{status: "failed"}`.
 * - `POST /api/firewall/alias_util/delete/<alias> {address}`: removes the address, with
 *   and without its mask, and answers `{status: "done"}` whether or not it was there (no
 *   not-found signal), for any alias name. Not a POST, or no `address`: `{status: "failed"}`.
 * - add, delete or list without an alias segment: 400 `{message: "action <verb> expects
 *   at least 1 parameter(s)", status: 400}` (the base controller's parameter check).
 * - `GET /api/firewall/alias_util/list/<alias>`: the alias's table as `{total, rowCount,
 *   current, rows: [{ip}]}` (current releases; older ones answered a bare array), the
 *   entries sorted as strings, single addresses shown without `/32` or `/128` as pfctl
 *   shows them, a range as its CIDR; `rowCount` is the page size, 9999 (a GET posts no
 *   `rowCount`), `current` 1, `total` every entry, and `rows` the first 9999 of them.
 * - `GET|POST /api/firewall/alias/search_item` with `searchPhrase` (query or body): the
 *   aliases as grid rows `{uuid, enabled, name, description, type, %type, content}`,
 *   sorted by name, `content` the entries joined by `,`, `type` the option key (`host`,
 *   `network`) and `%type` its label; the phrase is split on whitespace and every clause
 *   must occur, ignoring case, in one of the row's fields (a field's label when it has
 *   one): `{total, rowCount, current, rows}`.
 *
 * Ours, where no source says: any other path is 404 `{errorMessage: "Endpoint not found"}`;
 * an alias's table is its content (the real firewall keeps pf tables beside the config,
 * which agree after each change through this API); an address is kept once (the real add
 * can list the first entry twice); an unknown alias lists as an empty table.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startReceiver, type Received } from './receiver.ts';

/** The alias types whose content alias_util writes (other types keep their entries only in the pf table). */
export type AliasType = 'host' | 'network';
/** One alias as the firewall's configuration holds it. */
export type OpnsenseAlias = { uuid: string; name: string; type: AliasType; description: string; enabled: boolean; content: string[] };

export type OpnsenseStandIn = {
  /** The origin, a connection's base_url. */
  url: string;
  /** The live aliases by name; tests add an operator's own entries here. */
  aliases: Map<string, OpnsenseAlias>;
  /** Every request received, in order. */
  requests: Received[];
  close: () => Promise<void>;
};

const TYPE_LABELS: Record<AliasType, string> = { host: 'Host(s)', network: 'Network(s)' };
const NOT_AN_ADDRESS = /[^0-9a-f:./_]/;
/** The page size alias_util/list answers with when no `rowCount` is posted. */
const LIST_PAGE = 9999;
const ALIAS_UTIL = /^\/api\/firewall\/alias_util\/(add|delete|list)(?:\/([^/]*))?\/?$/;

type Answer = { status: number; body: unknown };
const done = (body: unknown): Answer => ({ status: 200, body });

/** The `Authorization` value OPNsense accepts for an API key and secret. */
export const opnsenseAuthorization = (key: string, secret: string): string => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

/** The address as an alias entry stores it: with a host mask on a network alias, as given on a host alias. */
const masked = (address: string): string => (address.includes('/') ? address : `${address}/${address.includes(':') ? '128' : '32'}`);
/** An entry as pfctl lists it: a single address without its host mask. */
const shown = (entry: string): string => entry.replace(/\/(32|128)$/, '');

/** A path segment decoded; a malformed escape stays as sent (it names no alias). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Starts the stand-in. `key` and `secret` are the API key pair every request must carry;
 * `aliases` the aliases the firewall has (each `content` as stored).
 */
export async function startOpnsenseStandIn(options: {
  key: string;
  secret: string;
  aliases: { name: string; type: AliasType; description?: string; content?: string[] }[];
}): Promise<OpnsenseStandIn> {
  const aliases = new Map<string, OpnsenseAlias>(
    options.aliases.map((a) => [
      a.name,
      { uuid: randomUUID(), name: a.name, type: a.type, description: a.description ?? '', enabled: true, content: [...(a.content ?? [])] },
    ]),
  );

  const authenticated = (header: string | undefined): boolean => {
    const credentials = header?.split(' ')[1];
    if (credentials === undefined) return false;
    const [key, secret] = Buffer.from(credentials, 'base64').toString('utf8').split(':');
    return key === options.key && secret === options.secret;
  };

  /** The POST fields of a request, or the 400 an empty JSON body earns. */
  const postFields = (r: Received): { fields: Record<string, unknown> } | { refused: Answer } => {
    const type = (r.headers['content-type'] ?? '').replace(/\s/g, '').toLowerCase();
    if (type === 'application/json' || type === 'application/json;charset=utf-8') {
      if (r.body === '') return { refused: { status: 400, body: { message: 'Invalid JSON syntax', status: 400 } } };
      try {
        const parsed: unknown = JSON.parse(r.body);
        return { fields: parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {} };
      } catch {
        return { fields: {} };
      }
    }
    return { fields: type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(r.body)) : {} };
  };

  const add = (alias: string, address: string): Answer => {
    if (NOT_AN_ADDRESS.test(address)) return done({ status: 'not_an_address' });
    const entry = aliases.get(alias);
    if (!entry) return done({ status: 'failed', status_msg: `non existing alias ${alias}` });
    const stored = entry.type === 'network' ? masked(address) : address;
    if (!entry.content.includes(stored)) entry.content.push(stored);
    return done({ status: 'done' });
  };

  const remove = (alias: string, address: string): Answer => {
    const entry = aliases.get(alias);
    if (entry) entry.content = entry.content.filter((item) => item !== address && item !== masked(address));
    return done({ status: 'done' });
  };

  const list = (alias: string): Answer => {
    const entries = (aliases.get(alias)?.content ?? []).map(shown).sort();
    return done({ total: entries.length, rowCount: LIST_PAGE, current: 1, rows: entries.slice(0, LIST_PAGE).map((ip) => ({ ip })) });
  };

  const search = (phrase: string): Answer => {
    const clauses = phrase
      .toLowerCase()
      .split(/\s+/)
      .filter((c) => c !== '');
    const rows = [...aliases.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((a) => ({
        uuid: a.uuid,
        enabled: a.enabled ? '1' : '0',
        name: a.name,
        description: a.description,
        type: a.type,
        '%type': TYPE_LABELS[a.type],
        content: a.content.join(','),
      }))
      .filter((row) => {
        const fields = [row.enabled, row.name, row.description, row['%type'], row.content].map((f) => f.toLowerCase());
        return clauses.every((clause) => fields.some((field) => field.includes(clause)));
      });
    return done({ total: rows.length, rowCount: rows.length, current: 1, rows });
  };

  const route = (r: Received): Answer => {
    if (!authenticated(r.headers.authorization)) return { status: 401, body: { status: 401, message: 'Authentication Failed' } };
    const url = new URL(r.path, 'http://stand-in.invalid');
    const util = ALIAS_UTIL.exec(url.pathname);
    if (util) {
      const [, verb, segment] = util;
      const alias = segment === undefined || segment === '' ? null : safeDecode(segment);
      if (alias === null) return { status: 400, body: { message: `action ${verb} expects at least 1 parameter(s)`, status: 400 } };
      if (verb === 'list') return list(alias);
      if (r.method !== 'POST') return done({ status: 'failed' });
      const posted = postFields(r);
      if ('refused' in posted) return posted.refused;
      const address = posted.fields.address;
      if (typeof address !== 'string') return done({ status: 'failed' });
      return verb === 'add' ? add(alias, address) : remove(alias, address);
    }
    if (url.pathname === '/api/firewall/alias/search_item' && (r.method === 'GET' || r.method === 'POST')) {
      const posted = r.method === 'POST' ? postFields(r) : { fields: {} as Record<string, unknown> };
      if ('refused' in posted) return posted.refused;
      const phrase = typeof posted.fields.searchPhrase === 'string' ? posted.fields.searchPhrase : (url.searchParams.get('searchPhrase') ?? '');
      return search(phrase);
    }
    return { status: 404, body: { errorMessage: 'Endpoint not found' } };
  };

  const server = await startReceiver((r: Received, res: ServerResponse) => {
    const answer = route(r);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(answer.body));
  });
  return { url: server.url, aliases, requests: server.received, close: server.close };
}
