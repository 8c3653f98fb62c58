/**
 * Local stand-ins for the two ticketing products' REST APIs, on 127.0.0.1, that check a
 * create request as the vendor documents it and answer in the vendor's shape:
 * - ticket_a (Jira Cloud REST v3): `POST /rest/api/3/issue`, HTTP Basic email:API token,
 *   `fields.project.key`, `fields.summary`, `fields.issuetype.name`, an ADF
 *   `fields.description` (`{type: "doc", version: 1, content}`); 201 `{id, key, self}`;
 *   400 `{errorMessages, errors}`; 401 for bad credentials.
 * - ticket_b (ServiceNow Table API): `POST /api/now/table/<table>`, HTTP Basic
 *   user:password, `Accept: application/json`, `short_description`; 201
 *   `{result: {sys_id, number, ...}}` (the documented example record, every value a
 *   string); 401 `{error: {message, detail}, status: "failure"}`.
 *
 * For polling, each keeps the tickets it created, which a test changes through `tickets`:
 * - ticket_a answers `GET /rest/api/3/issue/<id>?fields=status,comment` with `{id, key,
 *   fields: {status: {name}, comment: {comments: [{id, author, body (ADF), created}],
 *   maxResults, total, startAt}}}`;
 * - ticket_b answers `GET /api/now/table/task/<sys_id>` with `{result: {sys_id, number,
 *   state}}` and `GET /api/now/table/sys_journal_field?sysparm_query=element_id=<sys_id>^...`
 *   with `{result: [{sys_id, element, element_id, value, sys_created_by, sys_created_on}]}`.
 * `failReads` makes every read answer that status (a product outage); ticket_a's `holdReads`
 * takes the next ticket read as it arrives but answers it only on `release` (a slow product).
 *
 * For the connection probe: ticket_a answers `GET /rest/api/3/myself` with the account
 * (`{accountId, emailAddress, displayName, active, ...}`); ticket_b answers `GET
 * /api/now/table/<table>?sysparm_limit=<n>` with `{result: [...]}`, at most n records.
 *
 * For outbound mirroring: ticket_a takes `POST /rest/api/3/issue/<id>/comment {body: ADF}`
 * (201 `{id, body, author, created}`) and the workflow transitions `GET|POST
 * /rest/api/3/issue/<id>/transitions` among To Do, In Progress and Done (GET lists the
 * transitions to the other statuses as `{id, name, to: {name}}`; POST `{transition: {id}}`
 * answers 204, 400 for a transition not available); ticket_b takes `PATCH
 * /api/now/table/task/<sys_id>` with `comments` and/or `state` (200 `{result}`).
 */
import { randomBytes } from 'node:crypto';
import { readFixtureJson } from './fixtures.ts';
import { startReceiver } from './receiver.ts';

/** The credentials the tests give the stand-ins and the connections: a Jira API token, a ServiceNow password. */
export const JIRA_TOKEN = 'ATATT3xFfGF0-jira-token';
export const SNOW_PASSWORD = 'snow-password-5c1e';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

const workflow = [
  { id: '11', name: 'Back to do', to: { name: 'To Do' } },
  { id: '21', name: 'Start work', to: { name: 'In Progress' } },
  { id: '31', name: 'Resolve', to: { name: 'Done' } },
];

/** A ticket as a stand-in keeps it: its status and comments. */
export type StoredTicket = { key: string; status: string; comments: { id: string; text: string; author: string; created: string }[] };

export async function startTicketAServer(email: string, token: string, projects: string[]) {
  let next = 10_001;
  const tickets = new Map<string, StoredTicket>();
  const reads = { failWith: null as number | null, hold: null as null | { arrived: () => void; released: Promise<void> } };
  const server = await startReceiver((r, res) => {
    if (r.headers.authorization !== basic(email, token)) return res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
    if (r.method === 'GET' && r.path === '/rest/api/3/myself') {
      return json(res, 200, {
        self: 'https://your-domain.atlassian.net/rest/api/3/user?accountId=5b10a2844c20165700ede21g',
        accountId: '5b10a2844c20165700ede21g',
        accountType: 'atlassian',
        emailAddress: email,
        displayName: 'svc bot',
        active: true,
        timeZone: 'UTC',
        locale: 'en_US',
      });
    }
    const comment = /^\/rest\/api\/3\/issue\/(\d+)\/comment$/.exec(r.path);
    if (r.method === 'POST' && comment) {
      const t = tickets.get(comment[1]!);
      const body = (JSON.parse(r.body) as { body?: { type?: string; content?: { content?: { text?: string }[] }[] } }).body;
      if (!t) return json(res, 404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
      if (body?.type !== 'doc' || !Array.isArray(body.content))
        return json(res, 400, { errorMessages: [], errors: { comment: 'Comment body must be an Atlassian Document.' } });
      const text = body.content.map((p) => (p.content ?? []).map((n) => n.text ?? '').join('')).join('\n');
      const id = String(30_000 + t.comments.length);
      t.comments.push({ id, text, author: 'svc bot', created: new Date().toISOString() });
      return json(res, 201, { id, body, author: { displayName: 'svc bot' }, created: new Date().toISOString() });
    }
    const transitions = /^\/rest\/api\/3\/issue\/(\d+)\/transitions$/.exec(r.path);
    if (transitions) {
      const t = tickets.get(transitions[1]!);
      if (!t) return json(res, 404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
      const available = workflow.filter((w) => w.to.name !== t.status);
      if (r.method === 'GET') return json(res, 200, { transitions: available });
      const wanted = (JSON.parse(r.body) as { transition?: { id?: string } }).transition?.id;
      const chosen = available.find((w) => w.id === wanted);
      if (!chosen) return json(res, 400, { errorMessages: ['Transition id is not valid for this issue.'], errors: {} });
      t.status = chosen.to.name;
      return res.writeHead(204).end();
    }
    const read = /^\/rest\/api\/3\/issue\/(\d+)\?fields=status%2Ccomment$/.exec(r.path);
    if (r.method === 'GET' && read) {
      if (reads.failWith !== null) return json(res, reads.failWith, { errorMessages: ['Service unavailable'], errors: {} });
      const t = tickets.get(read[1]!);
      if (!t) return json(res, 404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
      const comments = t.comments.map((c) => ({
        id: c.id,
        author: { displayName: c.author },
        body: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: c.text }] }] },
        created: c.created,
      }));
      const body = {
        id: read[1],
        key: t.key,
        fields: { status: { name: t.status }, comment: { comments, maxResults: comments.length, total: comments.length, startAt: 0 } },
      };
      const hold = reads.hold;
      if (hold === null) return json(res, 200, body);
      reads.hold = null;
      hold.arrived();
      return void hold.released.then(() => json(res, 200, body));
    }
    if (r.method !== 'POST' || r.path !== '/rest/api/3/issue') return json(res, 404, { errorMessages: ['Not found'], errors: {} });
    const fields = (JSON.parse(r.body) as { fields?: Record<string, any> }).fields ?? {};
    const errors: Record<string, string> = {};
    if (!projects.includes(fields.project?.key)) errors.project = 'valid project is required';
    if (typeof fields.summary !== 'string' || fields.summary === '') errors.summary = 'You must specify a summary of the issue.';
    if (typeof fields.issuetype?.name !== 'string') errors.issuetype = 'Specify an issue type';
    if (
      fields.description !== undefined &&
      (fields.description.type !== 'doc' || fields.description.version !== 1 || !Array.isArray(fields.description.content))
    ) {
      errors.description = 'Operation value must be an Atlassian Document.';
    }
    if (Object.keys(errors).length > 0) return json(res, 400, { errorMessages: [], errors });
    const id = String(next++);
    const key = `${fields.project.key}-${id.slice(-1)}`;
    tickets.set(id, { key, status: 'To Do', comments: [] });
    json(res, 201, { id, key, self: `https://your-domain.atlassian.net/rest/api/3/issue/${id}` });
  });
  return {
    ...server,
    tickets,
    failReads: (status: number | null) => {
      reads.failWith = status;
    },
    /** Holds the next ticket read: `arrived` resolves when it came in, `release` answers it with the ticket as it was then. */
    holdReads: () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const arrived = new Promise<void>((resolve) => {
        reads.hold = { arrived: resolve, released };
      });
      return { arrived, release };
    },
  };
}

export async function startTicketBServer(username: string, password: string) {
  const example = readFixtureJson<{ result: Record<string, unknown> }>('vendors', 'servicenow', 'table_POST_incident.201.json').result;
  let next = 10_002;
  const tickets = new Map<string, StoredTicket>();
  const reads = { failWith: null as number | null };
  const server = await startReceiver((r, res) => {
    if (r.headers.authorization !== basic(username, password))
      return json(res, 401, { error: { message: 'User Not Authenticated', detail: 'Required to provide Auth information' }, status: 'failure' });
    const patch = /^\/api\/now\/table\/task\/([0-9a-f]{32})$/.exec(r.path);
    if (r.method === 'PATCH' && patch) {
      const t = tickets.get(patch[1]!);
      if (!t) return json(res, 404, { error: { message: 'No Record found', detail: '' }, status: 'failure' });
      const body = JSON.parse(r.body) as { comments?: string; state?: string };
      if (typeof body.comments === 'string')
        t.comments.push({ id: randomBytes(16).toString('hex'), text: body.comments, author: username, created: new Date().toISOString() });
      if (typeof body.state === 'string') t.status = body.state;
      return json(res, 200, { result: { sys_id: patch[1], number: t.key, state: t.status } });
    }
    if (r.method === 'GET') {
      if (reads.failWith !== null) return json(res, reads.failWith, { error: { message: 'Service unavailable', detail: '' }, status: 'failure' });
      const url = new URL(r.path, 'http://x');
      const task = /^\/api\/now\/table\/task\/([0-9a-f]{32})$/.exec(url.pathname);
      if (task) {
        const t = tickets.get(task[1]!);
        return t
          ? json(res, 200, { result: { sys_id: task[1], number: t.key, state: t.status } })
          : json(res, 404, { error: { message: 'No Record found', detail: '' }, status: 'failure' });
      }
      const query = /^element_id=([0-9a-f]{32})\^element=comments\^ORDERBYDESCsys_created_on$/.exec(url.searchParams.get('sysparm_query') ?? '');
      if (url.pathname === '/api/now/table/sys_journal_field' && query) {
        const entries = [...(tickets.get(query[1]!)?.comments ?? [])].reverse();
        return json(res, 200, {
          result: entries.map((c) => ({
            sys_id: c.id,
            element: 'comments',
            element_id: query[1],
            value: c.text,
            sys_created_by: c.author,
            sys_created_on: c.created,
          })),
        });
      }
      const table = /^\/api\/now\/table\/([a-z0-9_]+)$/.exec(url.pathname);
      if (table && table[1] !== 'sys_journal_field') {
        const rows = [...tickets.entries()].slice(0, Number(url.searchParams.get('sysparm_limit') ?? 10_000));
        const full = url.searchParams.get('sysparm_fields') !== 'sys_id';
        return json(res, 200, { result: rows.map(([sysId, t]) => ({ sys_id: sysId, ...(full && { number: t.key, state: t.status }) })) });
      }
      return json(res, 400, { error: { message: 'Invalid request', detail: '' }, status: 'failure' });
    }
    const match = /^\/api\/now\/table\/([a-z0-9_]+)$/.exec(r.path);
    if (r.method !== 'POST' || !match || r.headers.accept !== 'application/json')
      return json(res, 400, { error: { message: 'Invalid request', detail: '' }, status: 'failure' });
    const body = JSON.parse(r.body) as Record<string, unknown>;
    if (typeof body.short_description !== 'string')
      return json(res, 400, { error: { message: 'short_description is mandatory', detail: '' }, status: 'failure' });
    const number = `INC${String(next++).padStart(7, '0')}`;
    const sysId = randomBytes(16).toString('hex');
    tickets.set(sysId, { key: number, status: '1', comments: [] });
    json(res, 201, { result: { ...example, ...Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)])), sys_id: sysId, number } });
  });
  return {
    ...server,
    tickets,
    failReads: (status: number | null) => {
      reads.failWith = status;
    },
  };
}
