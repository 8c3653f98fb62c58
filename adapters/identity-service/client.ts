/**
 * Client of the suite's identity service for the two things SPEC.md has this service read
 * from it: a user's live grants ("Peer endpoints", `GET /peer/v1/approvals`) and the
 * install's approval settings ("Runs, steps and gates", the gate deadline default). The
 * wire contract is not shown in SPEC.md; ours is docs/suite-contracts.md "Identity: live
 * grants and approval settings", held by tests/support/identity-server.ts:
 *
 * - `GET <SVC_IDENTITY_URL><SVC_IDENTITY_GRANTS_PATH>?user=<subject>`, scope
 *   `identity:grants:read`: 200 `{user, active, grants: [{team, role}],
 *   four_eyes_exception}` (`team` null: a realm grant; `role` one of viewer, analyst,
 *   approver, admin), or 404 when identity knows no such subject.
 * - `GET <SVC_IDENTITY_URL><SVC_IDENTITY_APPROVAL_SETTINGS_PATH>`, scope
 *   `identity:approval-settings:read`: 200 `{default_deadline_hours, ...}` (hours, more
 *   than 0, at most 8760; other members are ignored).
 *
 * Each call carries `Authorization: Bearer <workload exchange token, audience identity>`
 * (adapters/exchange/client.ts) and goes through the guarded outbound fetch, which lets the
 * exact origin of SVC_IDENTITY_URL through. One deadline (`timeoutMs`) bounds a whole call,
 * its token included. A 401 is sent once more with a fresh token (exchange/send.ts);
 * nothing else is retried.
 *
 * Whatever is not such an answer throws `IdentityUnavailable`: identity not configured, the
 * exchange failing, a refused or failed connection, the deadline, any other status, a body
 * over 1 MiB, not JSON, or not of the contract's shape. Its `reason` names the failure,
 * never a token or a body.
 */
import * as v from 'valibot';
import { ActionFailure } from '../actions/action.ts';
import { joinUrl, readCappedText, type OutboundFetch } from '../actions/outbound-http.ts';
import type { ExchangeClient } from '../exchange/client.ts';
import { sendWithExchangeToken } from '../exchange/send.ts';
import { roles, type Grant } from '../identity/principal.ts';

/** The audience of identity tokens at the workload exchange, and the scope of each call (adapters/exchange/declared.ts declares them). */
export const IDENTITY_AUDIENCE = 'identity';
export const GRANTS_SCOPE = 'identity:grants:read';
export const APPROVAL_SETTINGS_SCOPE = 'identity:approval-settings:read';

/** Largest answer read from identity: 1 MiB. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Longest install default deadline accepted: a year, in hours. */
export const MAX_DEFAULT_DEADLINE_H = 8760;

/** Where identity is (SVC_IDENTITY_URL; null: not configured), its two paths and the bound on one call, ms (SVC_IDENTITY_TIMEOUT_MS). */
export type IdentityServiceSettings = { url: string | null; grantsPath: string; approvalSettingsPath: string; timeoutMs: number };

/** A user as identity knows them now. */
export type LiveGrants = { user: string; active: boolean; grants: Grant[]; fourEyesException: boolean };

/** The suite's approval settings this service reads: the install default gate deadline, hours. */
export type ApprovalSettings = { defaultDeadlineHours: number };

export type IdentityServiceClient = {
  /** `subject`'s live grants; null when identity knows no such subject. Throws IdentityUnavailable. */
  liveGrants: (subject: string) => Promise<LiveGrants | null>;
  /** The install's approval settings. Throws IdentityUnavailable. */
  approvalSettings: () => Promise<ApprovalSettings>;
};

/** Identity could not be read; `reason` is the failure's type (`not_configured`, `timeout`, `network_error`, `target_refused`, `exchange_failed`, `http_status`, `bad_response`, ...). */
export class IdentityUnavailable extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'IdentityUnavailable';
  }
}

const grantsAnswer = v.object({
  user: v.string(),
  active: v.boolean(),
  grants: v.array(v.object({ team: v.nullable(v.pipe(v.string(), v.minLength(1))), role: v.picklist(roles) })),
  four_eyes_exception: v.boolean(),
});

const approvalSettingsAnswer = v.object({
  default_deadline_hours: v.pipe(v.number(), v.finite(), v.gtValue(0), v.maxValue(MAX_DEFAULT_DEADLINE_H)),
});

/** A client sending through `outbound` (the guarded edge) with tokens from `exchange` for audience `identity`. */
export function createIdentityServiceClient(deps: {
  outbound: OutboundFetch;
  exchange: ExchangeClient;
  settings: IdentityServiceSettings;
}): IdentityServiceClient {
  const { outbound, exchange, settings } = deps;

  /** One GET of `path`: its status and body text. */
  const get = async (action: string, path: string, query: Record<string, string>, scope: string): Promise<{ status: number; text: string }> => {
    if (settings.url === null) throw new IdentityUnavailable('not_configured', `${action}: the identity service is not configured (SVC_IDENTITY_URL)`);
    const signal = AbortSignal.timeout(settings.timeoutMs);
    try {
      const url = joinUrl(action, settings.url, path, query);
      const init = { method: 'GET', headers: { accept: 'application/json' } };
      const response = await sendWithExchangeToken(action, exchange, outbound, { audience: IDENTITY_AUDIENCE, scopes: [scope], url, init }, signal);
      return { status: response.status, text: await readCappedText(action, response, url, signal, MAX_ANSWER_BYTES) };
    } catch (error) {
      if (error instanceof ActionFailure) throw new IdentityUnavailable(error.type, error.message);
      throw error;
    }
  };

  /** `text` as JSON of `schema`; IdentityUnavailable `bad_response` otherwise. */
  const parse = <S extends v.GenericSchema>(action: string, schema: S, text: string): v.InferOutput<S> => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new IdentityUnavailable('bad_response', `${action}: identity answered a body that is not JSON`);
    }
    const parsed = v.safeParse(schema, body);
    if (!parsed.success) throw new IdentityUnavailable('bad_response', `${action}: identity answered a body outside the contract`);
    return parsed.output;
  };

  const unexpected = (action: string, status: number) => new IdentityUnavailable('http_status', `${action}: identity answered HTTP ${status}`);

  return {
    async liveGrants(subject) {
      const action = 'identity.live_grants';
      const { status, text } = await get(action, settings.grantsPath, { user: subject }, GRANTS_SCOPE);
      if (status === 404) return null;
      if (status !== 200) throw unexpected(action, status);
      const answer = parse(action, grantsAnswer, text);
      if (answer.user !== subject) throw new IdentityUnavailable('bad_response', `${action}: identity answered for another user`);
      return { user: answer.user, active: answer.active, grants: answer.grants, fourEyesException: answer.four_eyes_exception };
    },
    async approvalSettings() {
      const action = 'identity.approval_settings';
      const { status, text } = await get(action, settings.approvalSettingsPath, {}, APPROVAL_SETTINGS_SCOPE);
      if (status !== 200) throw unexpected(action, status);
      return { defaultDeadlineHours: parse(action, approvalSettingsAnswer, text).default_deadline_hours };
    },
  };
}
