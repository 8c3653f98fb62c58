/**
 * The AI settings routes (SPEC.md "AI settings", "Authentication"; docs/suite-contracts.md
 * "AI settings peer route"). Every answer is `Cache-Control: no-store`; none carries the
 * provider key, which is write-only.
 *
 * - `GET, PUT /peer/v1/settings/ai`: the provider half, for the identity service's own
 *   token only (`token_use: service`, no `actor_sub`) with scope `svc:peer:ai:read` to
 *   read and `svc:peer:ai:write` to write; anyone else 403, a realm admin's assertion
 *   and exchange tokens included. The body is `{enabled}` alone or `{enabled, provider,
 *   base_url, model, api_key?}`; both answer `{enabled, provider, base_url, model,
 *   key_configured}`. A bad body is 400 `peer_bad_request` naming `params.field`; leaving
 *   out `api_key` while changing `provider` or `base_url` of a stored key is 422
 *   `ai_invalid_config`. A real change is audited `ai.settings.updated` by identity
 *   (`{half: 'provider', changed}`; `api_key` by name only).
 * - `GET, PUT /settings/ai`: the usage half `{data_classes, max_tokens, temperature,
 *   timeout_seconds}`, for admins install-wide (a realm admin grant; `svc:admin:read` /
 *   `svc:admin:write` on exchange tokens). PUT takes all four and nothing else (422 in the
 *   framework's validation shape otherwise); a real change is audited
 *   `ai.settings.updated` by the admin (`{half: 'usage', changed}`).
 * - `GET /settings/ai/status`: `{enabled, provider, model}` for anyone holding `read`
 *   (every role; `svc:cases:read` on exchange tokens, the scope every read route takes):
 *   `enabled` is the effective state (false under the operator's kill switch
 *   SVC_AI_KILL_SWITCH, when identity disabled AI, or with no complete provider), and
 *   provider and model are null unless it is on. Never a secret or the base_url.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import {
  AI_API_KEY_MAX_CHARS,
  AI_MODEL_MAX_CHARS,
  aiProviderBodyOption,
  aiProviderBodySchema,
  aiProviderKeys,
  aiProviderSettingsSchema,
  aiProviders,
  aiStatusOf,
  aiStatusSchema,
  aiUsageSchema,
} from '../../domain/ai/settings.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { peerBadRequest, peerJsonBody } from './account-section.ts';
import { recordAudit } from './audited.ts';
import { checkPeerService, requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/** The identity service's scope to read the provider half. */
export const AI_SETTINGS_READ_SCOPE = 'svc:peer:ai:read';
/** The identity service's scope to write the provider half. */
export const AI_SETTINGS_WRITE_SCOPE = 'svc:peer:ai:write';

/** What each field of the peer body must be, for the 400's detail (never the value sent: it may be a key). */
const fieldRules: Record<string, string> = {
  enabled: 'must be true or false',
  provider: `must be one of ${aiProviders.join(', ')}`,
  base_url: 'must be an absolute http or https URL without credentials, query or fragment',
  model: `must be 1 to ${AI_MODEL_MAX_CHARS} printable characters`,
  api_key: `must be 1 to ${AI_API_KEY_MAX_CHARS} characters without control characters, or null`,
};

/** identity's own token with `scope`, minted for nobody: a token carrying `actor_sub` acts for a person, and AI settings are not a person's. */
function identityItself(scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = checkPeerService(c.get('principal'), scope);
    if (principal.actorSubject !== undefined) {
      throw new DomainError('forbidden', 403, "the AI settings take the identity service's own token, not one minted for a person (actor_sub)");
    }
    await next();
  };
}

/** The peer body, parsed; 400 `peer_bad_request` naming the first offending field. */
function providerBody(body: unknown) {
  const parsed = v.safeParse(aiProviderBodyOption(body), body);
  if (parsed.success) return parsed.output;
  // A key of neither body is named before a field the body lacks: it says what the sender got wrong.
  const stranger = isObject(body) ? Object.keys(body).find((k) => !(aiProviderKeys as readonly string[]).includes(k)) : undefined;
  const field = stranger ?? v.getDotPath(parsed.issues[0]);
  const shape = 'body must be {enabled} or {enabled, provider, base_url, model, api_key?}';
  if (field === null) throw peerBadRequest(`${shape}, a JSON object`);
  const rule = fieldRules[field];
  throw peerBadRequest(rule === undefined ? `${shape}; ${field} is not one of its fields` : `${shape}; ${field} ${rule}`, { field });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the AI settings routes read of the service (adapters/http/deps.ts). */
export type AiSettingsRouteDeps = Pick<HttpDeps, 'aiKillSwitch' | 'aiSettings' | 'audit' | 'permissions' | 'waitFor'>;

/** The AI settings routes; mount behind `authenticate()`. */
export function aiSettingsRoutes(deps: AiSettingsRouteDeps) {
  return new Hono<AppEnv>()
    .get(
      '/peer/v1/settings/ai',
      describeRoute({
        summary: "The AI provider settings, for the identity service's own token (scope svc:peer:ai:read); the key is never shown",
        tags: ['peer'],
        responses: { 200: jsonAnswer(aiProviderSettingsSchema, 'Whether AI is enabled, the provider, base_url and model, and whether a key is stored') },
      }),
      identityItself(AI_SETTINGS_READ_SCOPE),
      async (c) => {
        c.header('cache-control', 'no-store');
        return c.json(await deps.aiSettings.providerView());
      },
    )
    .put(
      '/peer/v1/settings/ai',
      describeRoute({
        summary:
          "Turn AI on or off, or set the provider, for the identity service's own token (scope svc:peer:ai:write); the key is write-only and kept only for the same provider and base_url",
        tags: ['peer'],
        requestBody: { required: true, content: { 'application/json': { schema: resolver(aiProviderBodySchema) } } },
        responses: { 200: jsonAnswer(aiProviderSettingsSchema, 'The provider settings after the write; the key is never shown') },
      }),
      identityItself(AI_SETTINGS_WRITE_SCOPE),
      async (c) => {
        const body = await peerJsonBody(c.req);
        const { view, changed } = await deps.aiSettings.putProvider(providerBody(body));
        if (changed.length > 0) {
          await recordAudit(deps, c.get('principal'), {
            action: 'ai.settings.updated',
            target: null,
            detail: { half: 'provider', changed: [...changed].sort() },
          });
        }
        c.header('cache-control', 'no-store');
        return c.json(view);
      },
    )
    .get(
      '/settings/ai',
      describeRoute({
        summary: 'How AI may be used on this install: the data classes it may read, max_tokens, temperature and timeout_seconds (admin)',
        tags: ['settings'],
        responses: { 200: jsonAnswer(aiUsageSchema, 'The usage settings; the configured defaults until an admin changes them') },
      }),
      requirePermission('admin', 'svc:admin:read', deps.permissions, null),
      async (c) => {
        c.header('cache-control', 'no-store');
        return c.json(await deps.aiSettings.usage());
      },
    )
    .put(
      '/settings/ai',
      describeRoute({
        summary: 'Set how AI may be used on this install (admin); provider and enabled state belong to the identity service',
        tags: ['settings'],
        responses: { 200: jsonAnswer(aiUsageSchema, 'The usage settings after the write') },
      }),
      requirePermission('admin', 'svc:admin:write', deps.permissions, null),
      requireJson,
      validate('json', aiUsageSchema),
      async (c) => {
        const { view, changed } = await deps.aiSettings.putUsage(c.req.valid('json'));
        if (changed.length > 0) {
          await recordAudit(deps, c.get('principal'), { action: 'ai.settings.updated', target: null, detail: { half: 'usage', changed: [...changed].sort() } });
        }
        c.header('cache-control', 'no-store');
        return c.json(view);
      },
    )
    .get(
      '/settings/ai/status',
      describeRoute({
        summary: 'Whether AI is on for this install, and its provider and model when it is; no secret',
        tags: ['settings'],
        responses: { 200: jsonAnswer(aiStatusSchema, 'The effective state: off under the kill switch, when disabled or not configured') },
      }),
      requirePermission('read', 'svc:cases:read', deps.permissions),
      async (c) => {
        c.header('cache-control', 'no-store');
        return c.json(aiStatusOf(await deps.aiSettings.providerView(), deps.aiKillSwitch));
      },
    );
}
