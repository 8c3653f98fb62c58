/**
 * The known `config` keys of each connection kind (SPEC.md "Connection", table "Known
 * `config` keys"), checked when a connection is created or its config replaced, so a
 * mistake is a 422 naming the key instead of a failing step later. Keys the spec does
 * not list for a kind pass through untouched ("other keys: not shown").
 *
 * Our additions, documented in docs/configuration.md "Connections": `http.client_auth`
 * (`basic`, the default, or `post`: how the oauth2 client secret reaches `token_url`),
 * `http.audience` (sent with the token request, as Auth0-style servers want), `test_mode`
 * on `http` and `ssh` (the connection is a vendor sandbox or a local double: integration
 * pack tests execute actions only against such a connection), the
 * `email_smtp` keys `from`, `username`, `tls`, the `pipeline` key `deploy_requests_path`, the `chat_a` key `response_origin`,
 * the ticket keys `inbound_status_map`, `outbound_status_map` and `mirror_private_cases` (docs/configuration.md "Tickets"), the `detector` keys `alerts_path`,
 * `rules_path` and `page_size` (docs/suite-contracts.md), and every key of the kinds SPEC.md shows none for:
 * `imap`, `mailbox_graph` and `object_storage` (docs/configuration.md "Connections").
 */
import * as v from 'valibot';
import { jsonRecord } from '../shared/shapes.ts';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { issuesAt } from '../shared/issues.ts';
import { HEADER_NAME } from '../actions/http-request.ts';
import { DETECTOR_LIST_DEFAULTS } from '../detector/client.ts';
import { DEPLOY_REQUESTS_PATH } from '../actions/pipeline.ts';

/**
 * The ticket connections' switch for mirroring private cases out (docs/configuration.md
 * "Tickets"): default false, set true only by a realm admin, and turned off again by a
 * change of the connection's destination (adapters/connections/destination.ts).
 */
export const MIRROR_PRIVATE_CASES = 'mirror_private_cases';

/** The kinds that take `mirror_private_cases`: those the ticket outbox sends through. */
export const MIRRORING_KINDS: readonly string[] = ['ticket_a', 'ticket_b'];

/**
 * The `config` keys of each kind that say where its traffic goes, next to `base_url`: who
 * receives what the service sends (a host, a token endpoint, a mailbox, a bucket, the
 * project or table new tickets land in). A change of one is a destination change.
 */
export const DESTINATION_CONFIG_KEYS: Readonly<Record<string, readonly string[]>> = {
  http: ['token_url'],
  ssh: ['host', 'port'],
  imap: ['host', 'port'],
  mailbox_graph: ['tenant_id', 'mailbox', 'token_url'],
  object_storage: ['bucket'],
  chat_a: ['response_origin'],
  ticket_a: ['project_key'],
  ticket_b: ['table'],
};

/** Default and least `poll_interval_s` of ticket connections, seconds (SPEC.md "Connection"). */
export const TICKET_POLL_INTERVAL = { default: 300, min: 60 } as const;

const text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const httpsUrl = v.pipe(v.string('must be a string'), v.url('must be a URL'), v.startsWith('https://', 'must be an https URL'));
const port = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be 1-65535'), v.maxValue(65535, 'must be 1-65535'));
const toolNames = v.pipe(v.array(text, 'must be a list of tool names'), v.maxLength(500));
const testMode = v.optional(v.boolean('must be true or false'), false);

const http = v.pipe(
  v.looseObject({
    auth: v.optional(v.picklist(['header', 'oauth2_client_credentials'], "must be 'header' or 'oauth2_client_credentials'")),
    auth_header: v.optional(v.pipe(v.string('must be a string'), v.regex(HEADER_NAME, 'must be a header field name'))),
    auth_prefix: v.optional(v.string('must be a string')),
    token_url: v.optional(httpsUrl),
    client_id: v.optional(text),
    scope: v.optional(v.string('must be a string')),
    audience: v.optional(text),
    client_auth: v.optional(v.picklist(['basic', 'post'], "must be 'basic' or 'post'")),
    test_mode: testMode,
  }),
  v.forward(
    v.check((c) => c.auth !== 'oauth2_client_credentials' || c.token_url !== undefined, 'is required with auth oauth2_client_credentials'),
    ['token_url'],
  ),
  v.forward(
    v.check((c) => c.auth !== 'oauth2_client_credentials' || c.client_id !== undefined, 'is required with auth oauth2_client_credentials'),
    ['client_id'],
  ),
);

const ssh = v.pipe(
  v.looseObject({
    host: text,
    port: v.optional(port, 22),
    username: text,
    known_hosts: v.optional(text),
    accept_unknown_host_key: v.optional(v.boolean('must be true or false')),
    test_mode: testMode,
  }),
  v.forward(
    v.check(
      (c) => c.known_hosts !== undefined || c.accept_unknown_host_key === true,
      'a host-key policy is required: known_hosts, or accept_unknown_host_key: true',
    ),
    ['known_hosts'],
  ),
);

/** A status map: ticket status names (as the product shows them) onto case statuses, or the reverse. */
const statusMap = v.pipe(
  jsonRecord(
    v.pipe(v.string('must map to a status name'), v.minLength(1, 'must not be empty'), v.maxLength(100)),
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100)),
  ),
  v.check((m) => Object.keys(m).length <= 100, 'must have at most 100 entries'),
);

const ticket = v.looseObject({
  poll_interval_s: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(TICKET_POLL_INTERVAL.min, `must be at least ${TICKET_POLL_INTERVAL.min}`)),
    TICKET_POLL_INTERVAL.default,
  ),
  inbound_status_map: v.optional(statusMap, {}),
  outbound_status_map: v.optional(statusMap, {}),
  // Off unless a realm admin turns it on: a private case's comments and statuses stay in the service.
  [MIRROR_PRIVATE_CASES]: v.optional(v.boolean('must be true or false'), false),
});

const mcp = v.pipe(
  v.looseObject({ allowed_tools: v.optional(toolNames, []), read_only_tools: v.optional(toolNames, []) }),
  v.forward(
    v.check((c) => c.read_only_tools.every((t) => c.allowed_tools.includes(t)), 'must be a subset of allowed_tools'),
    ['read_only_tools'],
  ),
);

const emailSmtp = v.looseObject({
  from: v.optional(v.pipe(v.string('must be a string'), v.email('must be an email address'))),
  username: v.optional(text),
  tls: v.optional(v.picklist(['required', 'none'], "must be 'required' or 'none'")),
});

/** The detector's API (docs/suite-contracts.md "Detector"): alerts and rules paths below base_url, and alerts asked for per list page. */
const detector = v.looseObject({
  alerts_path: v.optional(v.pipe(text, v.startsWith('/', "must start with '/'")), DETECTOR_LIST_DEFAULTS.alertsPath),
  rules_path: v.optional(v.pipe(text, v.startsWith('/', "must start with '/'")), DETECTOR_LIST_DEFAULTS.rulesPath),
  page_size: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(1, `must be 1-${DETECTOR_LIST_DEFAULTS.maxPageSize}`),
      v.maxValue(DETECTOR_LIST_DEFAULTS.maxPageSize, `must be 1-${DETECTOR_LIST_DEFAULTS.maxPageSize}`),
    ),
    DETECTOR_LIST_DEFAULTS.pageSize,
  ),
});

/** The pipeline product's API (docs/suite-contracts.md "Pipeline"): the deploy-requests path below base_url. */
const pipeline = v.looseObject({
  deploy_requests_path: v.optional(v.pipe(text, v.startsWith('/', "must start with '/'")), DEPLOY_REQUESTS_PATH),
});

/** Where the chat product's signed `response_url`s may point (the interactions route posts its answers there). */
export const CHAT_A_RESPONSE_ORIGIN = 'https://hooks.slack.com';

const chatA = v.looseObject({
  response_origin: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.url('must be a URL'),
      v.check((u) => URL.canParse(u) && new URL(u).origin === u.replace(/\/$/, ''), 'must be an origin (scheme, host and port only)'),
    ),
    CHAT_A_RESPONSE_ORIGIN,
  ),
});

/** IMAP (ours; SPEC.md shows none): the secret is the password. `port` defaults to 993 with implicit TLS, else 143. */
const imap = v.pipe(
  v.looseObject({
    host: text,
    port: v.optional(port),
    tls: v.optional(v.picklist(['implicit', 'starttls', 'none'], "must be 'implicit', 'starttls' or 'none'"), 'implicit'),
    username: text,
  }),
  v.transform((c) => ({ ...c, port: c.port ?? (c.tls === 'implicit' ? 993 : 143) })),
);

/** The Microsoft identity platform's token endpoint of `tenant` (client-credentials grant, v2.0). */
export const graphTokenUrl = (tenant: string) => `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;

/**
 * A mailbox read through Microsoft Graph (ours): the app registration's `tenant_id` and
 * `client_id` (the secret is its client secret), the `mailbox` (user id or principal
 * name), and `token_url` (https; default graphTokenUrl(tenant_id), for national clouds).
 */
const mailboxGraph = v.pipe(
  v.looseObject({
    tenant_id: v.pipe(text, v.regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a tenant id or a verified domain name')),
    client_id: text,
    mailbox: v.pipe(text, v.maxLength(320, 'must be at most 320 characters')),
    token_url: v.optional(httpsUrl),
  }),
  v.transform((c) => ({ ...c, token_url: c.token_url ?? graphTokenUrl(c.tenant_id) })),
);

/** Default `region` of an `object_storage` connection, the one S3-compatible stores usually sign for. */
export const OBJECT_STORAGE_REGION = 'us-east-1';

/**
 * An S3-compatible bucket (ours): `bucket`, `region` (signing region), `access_key_id`
 * (the secret is the secret access key) and `path_style` (true: `<base_url>/<bucket>`;
 * false: `<bucket>.<base_url host>`, as AWS prefers).
 */
const objectStorage = v.looseObject({
  bucket: v.pipe(text, v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3-63 characters of a-z, 0-9, . and -')),
  region: v.optional(v.pipe(text, v.regex(/^[a-z0-9-]{1,40}$/, 'must be a region name such as eu-west-1')), OBJECT_STORAGE_REGION),
  access_key_id: v.pipe(text, v.maxLength(128, 'must be at most 128 characters')),
  path_style: v.optional(v.boolean('must be true or false'), true),
});

const rules: Record<string, v.GenericSchema<Record<string, unknown>, Record<string, unknown>>> = {
  http,
  ssh,
  detector,
  pipeline,
  ticket_a: ticket,
  ticket_b: ticket,
  mcp,
  email_smtp: emailSmtp,
  chat_a: chatA,
  imap,
  mailbox_graph: mailboxGraph,
  object_storage: objectStorage,
};

/**
 * `config` checked against `kind`'s known keys, with defaults filled in (http and ssh `test_mode` false, ssh `port` 22,
 * detector `alerts_path` and `page_size`, ticket `poll_interval_s` 300 and `mirror_private_cases` false, mcp tool lists [],
 * imap `tls` and `port`, mailbox_graph `token_url`, object_storage `region` and `path_style`). Throws ValidationFailed (422) with
 * `loc: ['body', 'config', key]` for each problem.
 * @example checkConnectionConfig('ticket_a', {}) // { poll_interval_s: 300, inbound_status_map: {}, outbound_status_map: {}, mirror_private_cases: false }
 */
export function checkConnectionConfig(kind: string, config: Record<string, unknown>): Record<string, unknown> {
  const schema = rules[kind];
  if (!schema) return config;
  const result = v.safeParse(schema, config);
  if (result.success) return result.output;
  throw new ValidationFailed(issuesAt(['body', 'config'], result.issues));
}
