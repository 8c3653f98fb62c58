/**
 * Local stand-ins of the two EDR management APIs the shipped host-isolation packs follow
 * (SPEC.md "Managed containment actions", shipped packs `edr_isolate_a` and
 * `edr_isolate_c`; packs/edr_isolate_a.yaml, packs/edr_isolate_c.yaml), on node:http at
 * 127.0.0.1 with a free port. Each checks the caller's credential, keeps its endpoints'
 * state (tests may read and change it) and records every request in order.
 *
 * SentinelOne management API v2.1 shape (`startSentinelOneStandIn`):
 * - `Authorization: ApiToken <token>`; anything else: 401 `{errors: [{code: 4010010,
 *   title: "Authentication Failed"}]}`.
 * - `POST /web/api/v2.1/agents/actions/disconnect` and `.../connect` with `{filter: {...}}`:
 *   the agents matching every filter field (`computerName` exact, `uuid`, `ids` a list)
 *   change `networkStatus` to `disconnected` or `connected`; 200 `{data: {affected: N}}`,
 *   N = 0 when none matched. A body without a non-empty `filter` object: 400 `{errors:
 *   [{code: 4000010, title: "Validation Error", detail}]}`.
 * - `GET /web/api/v2.1/agents?computerName=&uuid=&ids=`: 200 `{data: [agent...],
 *   pagination: {nextCursor: null, totalItems}}`.
 * - Any other route: 404 `{errors: [{code: 4040010, title: "Resource not found"}]}`.
 * Our choice where the vendor is asynchronous: a disconnect lands at once (a test sets
 * `disconnecting` itself to see the pending state).
 *
 * Microsoft Defender for Endpoint machine actions shape (`startDefenderStandIn`), the
 * fixtures in ../shared/fixtures/vendors/defender_endpoint/:
 * - `Authorization: Bearer <token>` that `accepts` takes; anything else: 401 `{error:
 *   {code: "Unauthorized", message}}` with `www-authenticate: Bearer`.
 * - `POST /api/machines/<id>/isolate` with `{Comment, IsolationType: Full|Selective}` and
 *   `POST /api/machines/<id>/unisolate` with `{Comment}`: 201 with the MachineAction
 *   (GET_machineactions_id.200.json's fields), `status: Pending`; the machine's isolation
 *   changes at once. An unknown machine: 404 `ResourceNotFound`; a missing Comment or a bad
 *   IsolationType: 400 `InvalidRequestBody`; `busy` set on the machine (an action still in
 *   progress): 400 `ActiveRequestAlreadyExists` "Action is already in progress".
 * - `GET /api/machineactions/<id>`: 200 the action, 404 `ResourceNotFound` when unknown.
 *
 * CrowdStrike Falcon hosts API shape (`startCrowdStrikeStandIn`), every answer `{meta:
 * {query_time, powered_by: device-api, trace_id}, resources, errors}`:
 * - `Authorization: Bearer <token>` that `accepts` takes (tokens minted by
 *   oauth2-server.ts); anything else: 401 with `errors: [{code: 401, message: "access
 *   denied, invalid bearer token"}]`.
 * - `POST /devices/entities/devices-actions/v2?action_name=contain|lift_containment` with
 *   `{ids: [<device id>...]}`: each known device changes `status` to `contained` or
 *   `normal` and is answered in `resources` as `{id, path: ""}`; each unknown one is an
 *   error `{code: 404, id, message: "Device not found: <id>"}` (our wording: the vendor's
 *   is not in its public reference). 202 when any device was acted on, else the error's
 *   status (404) with `resources: []`. An unknown action_name, or a body without a
 *   non-empty `ids` list of strings: 400. `quirk: 'accepted_nothing'` answers 202 with
 *   `resources: []` and the unknown-device error without changing anything, the answer a
 *   pack must never read as a containment.
 * - `GET /devices/entities/devices/v2?ids=<id>[&ids=...]`: 200 with the known devices in
 *   `resources` (`{device_id, hostname, status, platform_name, ...}`) and an error per
 *   unknown id; 404 with `resources: []` when none is known.
 * - Any other route: 404 `errors: [{code: 404, message: "Not Found"}]`.
 * Our choice where the vendor is asynchronous: a containment lands at once (a test sets
 * `containment_pending` or `lift_containment_pending` itself to see the pending states).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { jsonAnswer, listenRecording, type RecordingServer } from './recording-server.ts';

const parseObject = (text: string): Record<string, unknown> | null => {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** A SentinelOne agent as the agents list answers it (the fields the pack reads, and a few beside). */
export type SentinelOneAgent = {
  id: string;
  uuid: string;
  computerName: string;
  networkStatus: 'connected' | 'disconnecting' | 'disconnected' | 'connecting';
  isActive: boolean;
  osType: string;
  siteName: string;
};

export type SentinelOneStandIn = RecordingServer & { agents: SentinelOneAgent[] };

const s1Errors = (res: ServerResponse, status: number, code: number, title: string, detail: string | null = null) =>
  jsonAnswer(res, status, { errors: [{ code, title, detail }] });

/** Starts the SentinelOne stand-in taking API token `token`, with one connected agent per computer name in `computerNames`. */
export async function startSentinelOneStandIn(token: string, computerNames: string[]): Promise<SentinelOneStandIn> {
  const agents: SentinelOneAgent[] = computerNames.map((computerName, i) => ({
    id: String(225494730938493804n + BigInt(i)),
    uuid: randomUUID().replace(/-/g, ''),
    computerName,
    networkStatus: 'connected',
    isActive: true,
    osType: 'windows',
    siteName: 'Default site',
  }));
  const matches = (agent: SentinelOneAgent, filter: Record<string, unknown>) =>
    Object.entries(filter).every(([key, value]) => {
      if (key === 'computerName') return agent.computerName === value;
      if (key === 'uuid') return agent.uuid === value;
      if (key === 'ids') return Array.isArray(value) && value.includes(agent.id);
      return false;
    });
  const listening = await listenRecording((req, body, res) => {
    if (req.headers.authorization !== `ApiToken ${token}`) return s1Errors(res, 401, 4010010, 'Authentication Failed');
    const url = new URL(req.url ?? '/', 'http://s1');
    const action = /^\/web\/api\/v2\.1\/agents\/actions\/(disconnect|connect)$/.exec(url.pathname)?.[1];
    if (req.method === 'POST' && action) {
      const filter = parseObject(body)?.filter;
      if (filter === null || typeof filter !== 'object' || Array.isArray(filter) || Object.keys(filter).length === 0)
        return s1Errors(res, 400, 4000010, 'Validation Error', 'filter: at least one filter is required');
      const hit = agents.filter((a) => matches(a, filter as Record<string, unknown>));
      for (const agent of hit) agent.networkStatus = action === 'disconnect' ? 'disconnected' : 'connected';
      return jsonAnswer(res, 200, { data: { affected: hit.length } });
    }
    if (req.method === 'GET' && url.pathname === '/web/api/v2.1/agents') {
      const filter: Record<string, unknown> = {};
      for (const [key, value] of url.searchParams) filter[key] = key === 'ids' ? value.split(',') : value;
      const data = agents.filter((a) => matches(a, filter));
      return jsonAnswer(res, 200, { data, pagination: { nextCursor: null, totalItems: data.length } });
    }
    s1Errors(res, 404, 4040010, 'Resource not found');
  });
  return Object.assign(listening, { agents });
}

/** A Defender MachineAction, as the API answers it. */
export type MachineAction = {
  '@odata.context': string;
  id: string;
  type: 'Isolate' | 'Unisolate';
  scope: string | null;
  requestor: string;
  requestorComment: string;
  status: string;
  machineId: string;
  computerDnsName: string;
  creationDateTimeUtc: string;
  lastUpdateDateTimeUtc: string;
  relatedFileInfo: null;
};

/** A device: whether it is isolated, and `busy` to answer its next action with ActiveRequestAlreadyExists. */
export type DefenderMachine = { id: string; computerDnsName: string; isolated: boolean; busy: boolean };

export type DefenderStandIn = RecordingServer & { machines: Map<string, DefenderMachine>; actions: Map<string, MachineAction> };

const defenderError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  jsonAnswer(res, status, { error: { code, message, target: randomUUID() } }, headers);

/** Starts the Defender stand-in for `machines` (machine id to DNS name), taking a bearer token when `accepts` does. */
export async function startDefenderStandIn(accepts: (token: string) => boolean, machines: Record<string, string>): Promise<DefenderStandIn> {
  const store = new Map(Object.entries(machines).map(([id, computerDnsName]) => [id, { id, computerDnsName, isolated: false, busy: false }]));
  const actions = new Map<string, MachineAction>();
  const listening = await listenRecording((req, body, res) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !accepts(bearer))
      return defenderError(res, 401, 'Unauthorized', 'Authorization token is missing or invalid', { 'www-authenticate': 'Bearer' });
    const path = new URL(req.url ?? '/', 'http://mde').pathname;
    const machineAction = /^\/api\/machines\/([^/]+)\/(isolate|unisolate)$/.exec(path);
    if (req.method === 'POST' && machineAction) {
      const [, id = '', verb] = machineAction;
      const machine = store.get(decodeURIComponent(id));
      if (!machine) return defenderError(res, 404, 'ResourceNotFound', `Machine ${decodeURIComponent(id)} was not found`);
      const request = parseObject(body);
      const comment = request?.Comment;
      const isolationType = request?.IsolationType;
      if (typeof comment !== 'string' || comment === '') return defenderError(res, 400, 'InvalidRequestBody', 'Comment is required');
      if (verb === 'isolate' && isolationType !== 'Full' && isolationType !== 'Selective')
        return defenderError(res, 400, 'InvalidRequestBody', 'IsolationType must be Full or Selective');
      if (machine.busy) return defenderError(res, 400, 'ActiveRequestAlreadyExists', 'Action is already in progress');
      machine.isolated = verb === 'isolate';
      const now = new Date().toISOString();
      const action: MachineAction = {
        '@odata.context': 'https://api.securitycenter.microsoft.com/api/$metadata#MachineActions/$entity',
        id: randomUUID(),
        type: verb === 'isolate' ? 'Isolate' : 'Unisolate',
        scope: verb === 'isolate' ? String(isolationType) : null,
        requestor: 'svc-app',
        requestorComment: comment,
        status: 'Pending',
        machineId: machine.id,
        computerDnsName: machine.computerDnsName,
        creationDateTimeUtc: now,
        lastUpdateDateTimeUtc: now,
        relatedFileInfo: null,
      };
      actions.set(action.id, action);
      return jsonAnswer(res, 201, action);
    }
    const read = /^\/api\/machineactions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && read) {
      const action = actions.get(decodeURIComponent(read[1] ?? ''));
      return action ? jsonAnswer(res, 200, action) : defenderError(res, 404, 'ResourceNotFound', 'Machine action was not found');
    }
    defenderError(res, 404, 'ResourceNotFound', `No route for ${req.method} ${path}`);
  });
  return Object.assign(listening, { machines: store, actions });
}

/** A Falcon host as the device read answers it (the fields the pack reads, and a few beside). */
export type FalconDevice = {
  device_id: string;
  cid: string;
  hostname: string;
  status: 'normal' | 'containment_pending' | 'contained' | 'lift_containment_pending';
  platform_name: string;
  agent_version: string;
  last_seen: string;
};

export type CrowdStrikeStandIn = RecordingServer & {
  devices: Map<string, FalconDevice>;
  /** `accepted_nothing`: the next devices actions answer 202 with no resources and change nothing. */
  quirk: 'accepted_nothing' | null;
};

type FalconError = { code: number; id?: string; message: string };

const falcon = (res: ServerResponse, status: number, resources: unknown[], errors: FalconError[]) =>
  jsonAnswer(res, status, { meta: { query_time: 0.012, powered_by: 'device-api', trace_id: randomUUID() }, resources, errors });

/** Starts the CrowdStrike stand-in for `devices` (device id to hostname), taking a bearer token when `accepts` does. */
export async function startCrowdStrikeStandIn(accepts: (token: string) => boolean, devices: Record<string, string>): Promise<CrowdStrikeStandIn> {
  const cid = randomUUID().replace(/-/g, '');
  const store = new Map<string, FalconDevice>(
    Object.entries(devices).map(([device_id, hostname]) => [
      device_id,
      { device_id, cid, hostname, status: 'normal', platform_name: 'Windows', agent_version: '7.16.18605.0', last_seen: new Date().toISOString() },
    ]),
  );
  const notFound = (id: string): FalconError => ({ code: 404, id, message: `Device not found: ${id}` });
  // The handler reads the quirk a test sets on the returned stand-in, which exists before any request arrives.
  let standIn: CrowdStrikeStandIn | undefined;
  const listening = await listenRecording((req, body, res) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !accepts(bearer)) return falcon(res, 401, [], [{ code: 401, message: 'access denied, invalid bearer token' }]);
    const url = new URL(req.url ?? '/', 'http://falcon');
    if (req.method === 'POST' && url.pathname === '/devices/entities/devices-actions/v2') {
      const action = url.searchParams.get('action_name');
      if (action !== 'contain' && action !== 'lift_containment')
        return falcon(res, 400, [], [{ code: 400, message: `invalid action_name: ${action ?? '(none)'}` }]);
      const ids = parseObject(body)?.ids;
      if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))
        return falcon(res, 400, [], [{ code: 400, message: 'ids: a non-empty list of device ids is required' }]);
      if (standIn?.quirk === 'accepted_nothing') return falcon(res, 202, [], ids.map(notFound));
      const resources: { id: string; path: string }[] = [];
      const errors: FalconError[] = [];
      for (const id of ids) {
        const device = store.get(id);
        if (!device) {
          errors.push(notFound(id));
          continue;
        }
        device.status = action === 'contain' ? 'contained' : 'normal';
        resources.push({ id, path: '' });
      }
      return falcon(res, resources.length > 0 ? 202 : 404, resources, errors);
    }
    if (req.method === 'GET' && url.pathname === '/devices/entities/devices/v2') {
      const ids = url.searchParams.getAll('ids');
      const found = ids.flatMap((id) => store.get(id) ?? []);
      const errors = ids.filter((id) => !store.has(id)).map(notFound);
      return falcon(res, found.length > 0 || ids.length === 0 ? 200 : 404, found, errors);
    }
    falcon(res, 404, [], [{ code: 404, message: 'Not Found' }]);
  });
  standIn = Object.assign(listening, { devices: store, quirk: null });
  return standIn;
}
