/**
 * Local stand-ins of the three firewall APIs the shipped no-read packs follow (SPEC.md
 * "Managed containment actions", shipped packs `firewall_alias_b`, `firewall_quarantine`,
 * `firewall_tag`; packs/firewall_alias_b.yaml, firewall_quarantine.yaml,
 * firewall_tag.yaml), on node:http at 127.0.0.1 with a free port. Each checks the caller's
 * credential, keeps its state (tests read it) and records every request in order.
 *
 * pfSense REST API package v1 shape (`startPfSenseStandIn`), as its source answers:
 * - `Authorization: <client-id> <client-token>`; anything else: 401 `{status:
 *   "unauthorized", code: 401, return: 3, message: "Authentication failed", data: []}`.
 * - `POST /api/v1/firewall/alias/entry` `{name, address: [..], detail: [..]}`: appends each
 *   address to the host alias (a copy already listed is appended again), a missing detail
 *   becoming "Entry added <date>"; `DELETE` with `{name, address: [..]}` removes every
 *   entry equal to one of them, none matching being success. Both answer 200 `{status:
 *   "ok", code: 200, return: 0, message: "Success", data: <alias>}` with `address` and
 *   `detail` joined by " " and "||". Refusals are 400 in the same envelope: no name 4050
 *   "Firewall alias name required", an unknown alias 4055 "Firewall alias does not
 *   exist", an address a host alias cannot hold (a CIDR range) 4058 "Invalid firewall
 *   alias IP address or hostname".
 *
 * FortiGate FortiOS monitor API shape (`startFortiGateStandIn`):
 * - `Authorization: Bearer <token>`; anything else: 401 with the envelope, `status:
 *   "error"`, `http_status: 401`.
 * - `POST /api/v2/monitor/user/banned/add_users?vdom=<vdom>` `{ip_addresses: [..], expiry:
 *   <seconds>}` bans (or renews) each address; `.../clear_users` `{ip_addresses: [..]}`
 *   lifts them, an address not banned being left as it is. 200 with the envelope
 *   `{http_method, results: {}, vdom, path: "user", name: "banned", action, status:
 *   "success", http_status: 200, serial, version, build}`.
 * - Our choices where no source says: a value that is not one IP address, or an expiry
 *   that is not a whole number of seconds, is 400 with `status: "error"`, `http_status:
 *   400`, `error: -651`; an unknown vdom is 404 `error: -3`; a refusal a test arms with
 *   `refuseNext(text)` answers HTTP 200 with `status: "error"`, `http_status: 424`, `error:
 *   -1` and the text as `cli_error` (the form clients report: the failure only inside).
 *
 * PAN-OS XML API User-ID shape (`startPanOsStandIn`), XML answers as
 * `application/xml; charset=UTF-8`:
 * - The key in `X-PAN-KEY` (or the `key` parameter); anything else: 403 `<response
 *   status="error" code="403"><result><msg>Invalid Credential</msg></result></response>`.
 * - `/api/` with `type=user-id`, `vsys` and `cmd` (query or form body) holding a
 *   `uid-message` whose payload registers (`<member timeout="s">`, 0 or none: no timeout)
 *   or unregisters IP-tag mappings. Success: `<response status="success"><result>
 *   <uid-response><version>2.0</version><payload/></uid-response></result></response>`.
 *   A tag already on the address answers `status="error"` with `<msg><line><uid-response>
 *   ...<register><entry ip=".." message="tag <t> already exists, ignore"/>`, a tag not on
 *   it `<unregister><entry ... message="tag <t> does not exist, ignore unreg"/>` (the
 *   endings pan-os-python takes as duplicates); a timed-out tag is gone.
 * - Our choices: another type, or a cmd that is no uid-message, is 400 `<response
 *   status="error"><msg><line>..</line></msg></response>`; a refusal a test arms with
 *   `refuseNext(text)` answers the register's entry with that message.
 */
import { isIP } from 'node:net';
import type { ServerResponse } from 'node:http';
import { jsonAnswer, listenRecording, type RecordingServer } from './recording-server.ts';

export type PfSenseStandIn = RecordingServer & {
  /** The addresses host alias `name` lists now, in order (copies included); undefined when there is no such alias. */
  addresses: (name: string) => string[] | undefined;
  /** Removes alias `name`, as an operator deleting it would. */
  dropAlias: (name: string) => void;
  /** Creates an empty host alias `name`. */
  addAlias: (name: string) => void;
};

export type FortiGateStandIn = RecordingServer & {
  /** The banned addresses of `vdom` now, with their expiry in seconds as asked. */
  banned: (vdom: string) => { ip: string; expiry: number }[];
  /** The next add_users or clear_users answers a refusal carrying `text`. */
  refuseNext: (text: string) => void;
};

export type PanOsStandIn = RecordingServer & {
  /** The tags registered on `ip` in `vsys` now, with their timeout in seconds (0: none). */
  tags: (vsys: string, ip: string) => { tag: string; timeout: number }[];
  /** The next register answers its entry with `text` as the refusal. */
  refuseNext: (text: string) => void;
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value]);

/** pfSense REST API package v1 alias entries; `aliases` are the host aliases that exist at start. */
export async function startPfSenseStandIn(options: { clientId: string; clientToken: string; aliases: string[] }): Promise<PfSenseStandIn> {
  const aliases = new Map<string, { address: string[]; detail: string[] }>(options.aliases.map((name) => [name, { address: [], detail: [] }]));
  const envelope = (res: ServerResponse, code: number, ret: number, message: string, data: unknown) =>
    jsonAnswer(res, code, { status: code === 200 ? 'ok' : code === 401 ? 'unauthorized' : 'bad request', code, return: ret, message, data });
  const server = await listenRecording((req, text, res) => {
    if (req.headers.authorization !== `${options.clientId} ${options.clientToken}`) return envelope(res, 401, 3, 'Authentication failed', []);
    if (req.url !== '/api/v1/firewall/alias/entry' || (req.method !== 'POST' && req.method !== 'DELETE'))
      return envelope(res, 404, 7, 'Endpoint not found', []);
    const input = (parseJson(text) ?? {}) as { name?: unknown; address?: unknown; detail?: unknown };
    if (input.name === undefined) return envelope(res, 400, 4050, 'Firewall alias name required', []);
    const name = String(input.name);
    const alias = aliases.get(name);
    if (!alias) return envelope(res, 400, 4055, 'Firewall alias does not exist', []);
    const addresses = asList(input.address).map(String);
    if (req.method === 'POST') {
      if (addresses.some((a) => isIP(a) === 0)) return envelope(res, 400, 4058, 'Invalid firewall alias IP address or hostname', []);
      const details = asList(input.detail).map(String);
      addresses.forEach((address, i) => {
        alias.address.push(address);
        alias.detail.push(details[i] ?? `Entry added ${new Date().toUTCString()}`);
      });
    } else {
      for (let i = alias.address.length - 1; i >= 0; i--) {
        if (addresses.includes(alias.address[i] ?? '')) {
          alias.address.splice(i, 1);
          alias.detail.splice(i, 1);
        }
      }
    }
    envelope(res, 200, 0, 'Success', { name, type: 'host', address: alias.address.join(' '), descr: '', detail: alias.detail.join('||') });
  });
  return {
    ...server,
    addresses: (name) => (aliases.has(name) ? [...(aliases.get(name)?.address ?? [])] : undefined),
    dropAlias: (name) => {
      aliases.delete(name);
    },
    addAlias: (name) => {
      aliases.set(name, { address: [], detail: [] });
    },
  };
}

/** FortiGate banned-users monitor API; `vdoms` are the virtual domains that exist. */
export async function startFortiGateStandIn(options: { token: string; vdoms: string[] }): Promise<FortiGateStandIn> {
  const banned = new Map<string, Map<string, number>>(options.vdoms.map((v) => [v, new Map()]));
  let refusal: string | null = null;
  const server = await listenRecording((req, text, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const action = /^\/api\/v2\/monitor\/user\/banned\/(add_users|clear_users)$/.exec(url.pathname)?.[1];
    const vdom = url.searchParams.get('vdom') ?? 'root';
    const answer = (status: number, fields: Record<string, unknown>) =>
      jsonAnswer(res, status, {
        http_method: req.method,
        vdom,
        path: 'user',
        name: 'banned',
        action: action ?? '',
        serial: 'FGVM02TM24000001',
        version: 'v7.4.4',
        build: 2662,
        ...fields,
      });
    if (req.headers.authorization !== `Bearer ${options.token}`) return answer(401, { status: 'error', http_status: 401 });
    if (!action || req.method !== 'POST') return answer(404, { status: 'error', http_status: 404 });
    const list = banned.get(vdom);
    if (!list) return answer(404, { status: 'error', http_status: 404, error: -3 });
    if (refusal !== null) {
      const cli_error = refusal;
      refusal = null;
      return answer(200, { status: 'error', http_status: 424, error: -1, cli_error });
    }
    const input = (parseJson(text) ?? {}) as { ip_addresses?: unknown; expiry?: unknown };
    const ips = Array.isArray(input.ip_addresses) ? input.ip_addresses : [];
    if (ips.length === 0 || ips.some((ip) => typeof ip !== 'string' || isIP(ip) === 0)) return answer(400, { status: 'error', http_status: 400, error: -651 });
    if (action === 'add_users') {
      const expiry = input.expiry;
      if (typeof expiry !== 'number' || !Number.isInteger(expiry) || expiry < 0) return answer(400, { status: 'error', http_status: 400, error: -651 });
      for (const ip of ips as string[]) list.set(ip, expiry);
    } else {
      for (const ip of ips as string[]) list.delete(ip);
    }
    answer(200, { results: {}, status: 'success', http_status: 200 });
  });
  return {
    ...server,
    banned: (vdom) => [...(banned.get(vdom) ?? new Map<string, number>()).entries()].map(([ip, expiry]) => ({ ip, expiry })),
    refuseNext: (text) => {
      refusal = text;
    },
  };
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const xmlUnescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

type Mapping = { ip: string; members: { tag: string; timeout: number }[] };

/** The entries of the payload's `<kind>` section of a uid-message. */
function uidEntries(cmd: string, kind: 'register' | 'unregister'): Mapping[] {
  const section = new RegExp(`<${kind}>([\\s\\S]*?)</${kind}>`).exec(cmd)?.[1] ?? '';
  return [...section.matchAll(/<entry ip="([^"]*)"[^>]*>([\s\S]*?)<\/entry>/g)].map(([, ip, inner]) => ({
    ip: xmlUnescape(ip ?? ''),
    members: [...(inner ?? '').matchAll(/<member(?: timeout="(\d+)")?>([^<]*)<\/member>/g)].map(([, timeout, tag]) => ({
      tag: xmlUnescape(tag ?? ''),
      timeout: Number(timeout ?? 0),
    })),
  }));
}

/** PAN-OS XML API User-ID requests; `vsys` are the virtual systems that exist. */
export async function startPanOsStandIn(options: { key: string; vsys: string[] }): Promise<PanOsStandIn> {
  // vsys -> ip -> tag -> {timeout, expires at (ms) or null}
  const registered = new Map<string, Map<string, Map<string, { timeout: number; expires: number | null }>>>(options.vsys.map((v) => [v, new Map()]));
  let refusal: string | null = null;
  const live = (vsys: string, ip: string) => {
    const tags = registered.get(vsys)?.get(ip) ?? new Map<string, { timeout: number; expires: number | null }>();
    for (const [tag, { expires }] of tags) if (expires !== null && expires <= Date.now()) tags.delete(tag);
    return tags;
  };
  const server = await listenRecording((req, text, res) => {
    const xml = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/xml; charset=UTF-8' });
      res.end(body);
    };
    const url = new URL(req.url ?? '/', 'http://standin');
    const params = new URLSearchParams(url.search);
    if (/application\/x-www-form-urlencoded/.test(String(req.headers['content-type']))) for (const [k, v] of new URLSearchParams(text)) params.set(k, v);
    if ((req.headers['x-pan-key'] ?? params.get('key')) !== options.key)
      return xml(403, '<response status="error" code="403"><result><msg>Invalid Credential</msg></result></response>');
    const cmd = params.get('cmd') ?? '';
    if (url.pathname !== '/api/' || params.get('type') !== 'user-id' || !/^<uid-message>[\s\S]*<\/uid-message>$/.test(cmd)) {
      return xml(400, '<response status="error"><msg><line>the request is not a User-ID uid-message</line></msg></response>');
    }
    const vsys = params.get('vsys') ?? 'vsys1';
    const table = registered.get(vsys);
    if (!table) return xml(400, `<response status="error"><msg><line>vsys ${xmlEscape(vsys)} does not exist</line></msg></response>`);
    const failures: { kind: 'register' | 'unregister'; ip: string; message: string }[] = [];
    for (const { ip, members } of uidEntries(cmd, 'register')) {
      const tags = live(vsys, ip);
      for (const { tag, timeout } of members) {
        if (refusal !== null) {
          failures.push({ kind: 'register', ip, message: refusal });
          refusal = null;
        } else if (tags.has(tag)) {
          failures.push({ kind: 'register', ip, message: `tag ${tag} already exists, ignore` });
        } else {
          tags.set(tag, { timeout, expires: timeout > 0 ? Date.now() + timeout * 1000 : null });
          table.set(ip, tags);
        }
      }
    }
    for (const { ip, members } of uidEntries(cmd, 'unregister')) {
      const tags = live(vsys, ip);
      for (const { tag } of members) {
        if (tags.delete(tag)) continue;
        failures.push({ kind: 'unregister', ip, message: `tag ${tag} does not exist, ignore unreg` });
      }
    }
    if (failures.length === 0) {
      return xml(200, '<response status="success"><result><uid-response><version>2.0</version><payload/></uid-response></result></response>');
    }
    const section = (kind: 'register' | 'unregister') => {
      const entries = failures.filter((f) => f.kind === kind).map((f) => `<entry ip="${xmlEscape(f.ip)}" message="${xmlEscape(f.message)}"/>`);
      return entries.length === 0 ? '' : `<${kind}>${entries.join('')}</${kind}>`;
    };
    xml(
      200,
      `<response status="error"><msg><line><uid-response><version>2.0</version><payload>${section('register')}${section('unregister')}</payload></uid-response></line></msg></response>`,
    );
  });
  return {
    ...server,
    tags: (vsys, ip) => [...live(vsys, ip).entries()].map(([tag, { timeout }]) => ({ tag, timeout })),
    refuseNext: (text) => {
      refusal = text;
    },
  };
}
