/**
 * The known `config` keys of each connection kind (SPEC.md "Connection", table "Known
 * `config` keys"), checked when a connection is created or its config replaced, so a
 * mistake is a 422 naming the key instead of a failing step later. Keys the spec does
 * not list for a kind pass through untouched ("other keys: not shown").
 *
 * Our additions, documented in docs/configuration.md "Connections": `http.client_auth`
 * (`basic`, the default, or `post`: how the oauth2 client secret reaches `token_url`),
 * `http.audience` (sent with the token request, as Auth0-style servers want), the
 * `email_smtp` keys `from`, `username`, `tls`, the `pipeline` key `deploy_requests_path`, the `chat_a` key `response_origin`,
 * the ticket keys `inbound_status_map` and `outbound_status_map` (docs/configuration.md "Tickets"), and the `detector` keys `alerts_path`,
 * `rules_path` and `page_size` (docs/suite-contracts.md).
 */
import * as v from 'valibot';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { issuesAt } from '../shared/issues.ts';
import { HEADER_NAME } from '../actions/http-request.ts';
import { DETECTOR_LIST_DEFAULTS } from '../detector/client.ts';
import { DEPLOY_REQUESTS_PATH } from '../actions/pipeline.ts';

/** Default and least `poll_interval_s` of ticket connections, seconds (SPEC.md "Connection"). */
export const TICKET_POLL_INTERVAL = { default: 300, min: 60 } as const;

const text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const httpsUrl = v.pipe(v.string('must be a string'), v.url('must be a URL'), v.startsWith('https://', 'must be an https URL'));
const port = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be 1-65535'), v.maxValue(65535, 'must be 1-65535'));
const toolNames = v.pipe(v.array(text, 'must be a list of tool names'), v.maxLength(500));

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
  }),
  v.forward(
    v.check((c) => c.known_hosts !== undefined || c.accept_unknown_host_key === true, 'a host-key policy is required: known_hosts, or accept_unknown_host_key: true'),
    ['known_hosts'],
  ),
);

/** A status map: ticket status names (as the product shows them) onto case statuses, or the reverse. */
const statusMap = v.pipe(
  v.record(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100)), v.pipe(v.string('must map to a status name'), v.minLength(1, 'must not be empty'), v.maxLength(100))),
  v.check((m) => Object.keys(m).length <= 100, 'must have at most 100 entries'),
);

const ticket = v.looseObject({
  poll_interval_s: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(TICKET_POLL_INTERVAL.min, `must be at least ${TICKET_POLL_INTERVAL.min}`)),
    TICKET_POLL_INTERVAL.default,
  ),
  inbound_status_map: v.optional(statusMap, {}),
  outbound_status_map: v.optional(statusMap, {}),
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
    v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, `must be 1-${DETECTOR_LIST_DEFAULTS.maxPageSize}`), v.maxValue(DETECTOR_LIST_DEFAULTS.maxPageSize, `must be 1-${DETECTOR_LIST_DEFAULTS.maxPageSize}`)),
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
};

/**
 * `config` checked against `kind`'s known keys, with defaults filled in (ssh `port` 22,
 * detector `alerts_path` and `page_size`, ticket `poll_interval_s` 300, mcp tool lists []). Throws ValidationFailed (422) with
 * `loc: ['body', 'config', key]` for each problem.
 * @example checkConnectionConfig('ticket_a', {}) // { poll_interval_s: 300 }
 */
export function checkConnectionConfig(kind: string, config: Record<string, unknown>): Record<string, unknown> {
  const schema = rules[kind];
  if (!schema) return config;
  const result = v.safeParse(schema, config);
  if (result.success) return result.output;
  throw new ValidationFailed(issuesAt(['body', 'config'], result.issues));
}
