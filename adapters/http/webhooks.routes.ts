/**
 * `POST /webhooks/detector` (SPEC.md "Webhook intake", CONTRACTS.md section 5):
 * authenticated by the bootstrap secret (`X-Svc-Token` or `Authorization: Bearer`),
 * compared in constant time. Answers 202 with what happened to each alert.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import { withObservables, type IntakeResult } from '../commands/intake.ts';
import type { HttpDeps } from './deps.ts';
import { detectorIntakeSchema, type DetectorAlert } from './intake.schemas.ts';
import { requireJson, validate } from './validation.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The webhook token of a request: `X-Svc-Token`, else a Bearer token. */
export function webhookToken(header: (name: string) => string | undefined): string | null {
  const direct = header('x-svc-token');
  if (direct) return direct;
  const auth = header('authorization');
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return match?.[1] ?? null;
}

export function webhookRoutes(deps: HttpDeps) {
  const severities = new Set(deps.caseConfig.severities);
  const toIncoming = (a: DetectorAlert, index: number | null) => {
    const severity = (a.severity ?? a.rule.severity).toLowerCase();
    if (!severities.has(severity)) {
      const field = a.severity ? ['severity'] : ['rule', 'severity'];
      const loc = ['body', ...(index === null ? [] : [index]), ...field];
      throw new ValidationFailed([{ loc, msg: `must be one of ${[...severities].join(', ')}`, type: 'value_error' }]);
    }
    return withObservables({
      source: 'detector',
      external_id: a.alert_id,
      rule_id: a.rule.id,
      title: a.rule.title,
      severity,
      detected_at: a.detected_at ?? null,
      url: a.url ?? null,
      correlation_root: a.correlation_root ?? null,
      suite_correlation_id: a.suite_correlation_id ?? null,
      team: a.team ?? null,
      matched_log: a.matched_log,
      observables: a.observables,
      payload: a as unknown as Record<string, unknown>,
    });
  };

  return new Hono().post(
    '/webhooks/detector',
    describeRoute({ summary: 'Detector alert intake (one alert or an array)', tags: ['intake'] }),
    async (c, next) => {
      const secret = deps.detectorBootstrapSecret;
      const token = webhookToken((n) => c.req.header(n));
      if (!secret || !token || !timingSafeEqual(digest(token), digest(secret))) {
        throw new DomainError('unauthenticated', 401, 'missing or invalid webhook token');
      }
      await next();
    },
    requireJson,
    validate('json', detectorIntakeSchema),
    async (c) => {
      const body = c.req.valid('json');
      const alerts = Array.isArray(body) ? body.map((a, i) => toIncoming(a, i)) : [toIncoming(body, null)];
      const results: IntakeResult[] = [];
      let position = 0;
      for (const alert of alerts) {
        const outcome = await deps.intake.ingest(alert);
        results.push(outcome.result);
        position = Math.max(position, outcome.position);
      }
      await deps.waitFor(position);
      return c.json(Array.isArray(body) ? { results } : results[0], 202);
    },
  );
}
