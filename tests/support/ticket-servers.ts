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
 */
import { randomBytes } from 'node:crypto';
import { readFixtureJson } from './fixtures.ts';
import { startReceiver } from './receiver.ts';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

export async function startTicketAServer(email: string, token: string, projects: string[]) {
  let next = 10_001;
  return startReceiver((r, res) => {
    if (r.headers.authorization !== basic(email, token)) return res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
    if (r.method !== 'POST' || r.path !== '/rest/api/3/issue') return json(res, 404, { errorMessages: ['Not found'], errors: {} });
    const fields = (JSON.parse(r.body) as { fields?: Record<string, any> }).fields ?? {};
    const errors: Record<string, string> = {};
    if (!projects.includes(fields.project?.key)) errors.project = 'valid project is required';
    if (typeof fields.summary !== 'string' || fields.summary === '') errors.summary = 'You must specify a summary of the issue.';
    if (typeof fields.issuetype?.name !== 'string') errors.issuetype = 'Specify an issue type';
    if (fields.description !== undefined && (fields.description.type !== 'doc' || fields.description.version !== 1 || !Array.isArray(fields.description.content))) {
      errors.description = 'Operation value must be an Atlassian Document.';
    }
    if (Object.keys(errors).length > 0) return json(res, 400, { errorMessages: [], errors });
    const id = String(next++);
    const key = `${fields.project.key}-${id.slice(-1)}`;
    json(res, 201, { id, key, self: `https://your-domain.atlassian.net/rest/api/3/issue/${id}` });
  });
}

export async function startTicketBServer(username: string, password: string) {
  const example = readFixtureJson<{ result: Record<string, unknown> }>('vendors', 'servicenow', 'table_POST_incident.201.json').result;
  let next = 10_002;
  return startReceiver((r, res) => {
    if (r.headers.authorization !== basic(username, password)) return json(res, 401, { error: { message: 'User Not Authenticated', detail: 'Required to provide Auth information' }, status: 'failure' });
    const match = /^\/api\/now\/table\/([a-z0-9_]+)$/.exec(r.path);
    if (r.method !== 'POST' || !match || r.headers.accept !== 'application/json') return json(res, 400, { error: { message: 'Invalid request', detail: '' }, status: 'failure' });
    const body = JSON.parse(r.body) as Record<string, unknown>;
    if (typeof body.short_description !== 'string') return json(res, 400, { error: { message: 'short_description is mandatory', detail: '' }, status: 'failure' });
    const number = `INC${String(next++).padStart(7, '0')}`;
    json(res, 201, { result: { ...example, ...Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)])), sys_id: randomBytes(16).toString('hex'), number } });
  });
}
