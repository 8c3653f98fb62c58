/**
 * The detector actions (SPEC.md "Action registry entry", "Detector exceptions"): calls to
 * the suite's detection product with short-lived exchange tokens, never a stored secret
 * (adapters/detector/client.ts; wire contract in docs/suite-contracts.md "Detector").
 *
 * - `detector.get_alert {alert_id}` → `{alert}` (scope `detector:alerts:read`).
 * - `detector.comment_alert {alert_id, comment}` → `{comment_id}` (`detector:alerts:write`).
 * - `detector.snooze_rule {rule_id, duration_s, reason?}` → `{rule_id, snoozed_until}` (`detector:rules:write`).
 * - `detector.add_exception {rule_id, field, value, reason?, expires_at?}` → `{outcome,
 *   exception_id, proposal_id}` (`detector:exceptions:write`): `applied` with
 *   `exception_id`, `pending_review` with `proposal_id` (nothing is suppressed until a
 *   detector reviewer approves), else `indeterminate` (a 2xx without a recognised outcome;
 *   `exception_id` if one came back), which is never read as applied.
 *
 * The changing calls carry `Idempotency-Key: svc-<run>-<step>`, the same on every attempt,
 * so a retried step changes the detector once. A non-2xx fails the step with the
 * detector's own `detail` (`detector_error`). Previews show method, URL and body, and
 * mint no token.
 */
import { ActionFailure, type ActionContext, type ActionDefinition, type ResolvedConnection } from '../actions/action.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';
import { requireConnection } from '../actions/outbound-http.ts';
import { DETECTOR_LIST_DEFAULTS, detectorPath, type DetectorClient, type DetectorRequest } from './client.ts';

type Call = Omit<DetectorRequest, 'idempotencyKey'> & { changes: boolean };

/** Builds one detector action: `call` says what to send, `read` turns the 2xx body into the output. */
function detectorAction<Input extends Record<string, unknown>, Output>(
  detector: DetectorClient,
  name: keyof typeof builtinSchemas & `detector.${string}`,
  risk: ActionDefinition['risk'],
  call: (input: Input, connection: ResolvedConnection) => Call,
  read: (body: unknown, input: Input, bad: (why: string) => ActionFailure) => Output,
): ActionDefinition<Input, Output> {
  const schemas = builtinSchemas[name];
  if (!schemas) throw new Error(`no built-in schemas for ${name}`);
  const prepare = (input: Input, context: ActionContext) => {
    const connection = requireConnection(name, context, 'detector');
    const { changes, ...request } = call(input, connection);
    return { connection, request: { ...request, ...(changes ? { idempotencyKey: `svc-${context.deliveryId}` } : {}) } };
  };
  return {
    name,
    connectionKind: 'detector',
    risk,
    input: schemas.input as ActionDefinition<Input>['input'],
    output: schemas.output,
    async execute(input, context) {
      const { connection, request } = prepare(input, context);
      const { body } = await detector.request(name, connection, request, context.signal);
      const host = new URL(connection.base_url).host;
      return read(body, input, (why) => new ActionFailure('detector_bad_response', `${name}: detector ${host} answered ${why}`, false));
    },
    async preview(input, context) {
      const { connection, request } = prepare(input, context);
      return {
        method: request.method,
        url: detector.urlOf(name, connection, request.path).toString(),
        scopes: request.scopes,
        ...(request.body === undefined ? {} : { body: request.body }),
      };
    },
  };
}

const segment = (value: string) => encodeURIComponent(value);
const stringField = (body: unknown, key: string): string | null => {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : null;
};
const alertsPath = (c: ResolvedConnection) => detectorPath(c, 'alerts_path', DETECTOR_LIST_DEFAULTS.alertsPath);
const rulesPath = (c: ResolvedConnection) => detectorPath(c, 'rules_path', DETECTOR_LIST_DEFAULTS.rulesPath);

type ExceptionInput = { rule_id: string; field: string; value: string | number; reason?: string; expires_at?: string };
export type ExceptionOutcome = { outcome: 'applied' | 'pending_review' | 'indeterminate'; exception_id: string | null; proposal_id: string | null };

/** SPEC.md "Detector exceptions": only a recognised outcome with its identifier counts; anything else is indeterminate. */
export function exceptionOutcome(body: unknown): ExceptionOutcome {
  const outcome = stringField(body, 'outcome');
  const exceptionId = stringField(body, 'exception_id');
  const proposalId = stringField(body, 'proposal_id');
  if (outcome === 'applied' && exceptionId !== null) return { outcome: 'applied', exception_id: exceptionId, proposal_id: null };
  if (outcome === 'pending_review' && proposalId !== null) return { outcome: 'pending_review', exception_id: null, proposal_id: proposalId };
  return { outcome: 'indeterminate', exception_id: exceptionId, proposal_id: null };
}

/** The four detector actions over `detector`. */
export function detectorActions(detector: DetectorClient): ActionDefinition[] {
  return [
    detectorAction<{ alert_id: string }, { alert: Record<string, unknown> }>(
      detector,
      'detector.get_alert',
      'read',
      (input, c) => ({ method: 'GET', path: `${alertsPath(c)}/${segment(input.alert_id)}`, scopes: ['detector:alerts:read'], changes: false }),
      (body, _input, bad) => {
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('an alert that is not a JSON object');
        return { alert: body as Record<string, unknown> };
      },
    ),
    detectorAction<{ alert_id: string; comment: string }, { comment_id: string }>(
      detector,
      'detector.comment_alert',
      'notify',
      (input, c) => ({
        method: 'POST',
        path: `${alertsPath(c)}/${segment(input.alert_id)}/comments`,
        scopes: ['detector:alerts:write'],
        body: { comment: input.comment },
        changes: true,
      }),
      (body, _input, bad) => {
        const commentId = stringField(body, 'comment_id');
        if (commentId === null) throw bad('a comment without comment_id');
        return { comment_id: commentId };
      },
    ),
    detectorAction<{ rule_id: string; duration_s: number; reason?: string }, { rule_id: string; snoozed_until: string }>(
      detector,
      'detector.snooze_rule',
      'write',
      (input, c) => ({
        method: 'POST',
        path: `${rulesPath(c)}/${segment(input.rule_id)}/snooze`,
        scopes: ['detector:rules:write'],
        body: { duration_s: input.duration_s, ...(input.reason === undefined ? {} : { reason: input.reason }) },
        changes: true,
      }),
      (body, input, bad) => {
        const until = stringField(body, 'snoozed_until');
        if (until === null || Number.isNaN(Date.parse(until))) throw bad('a snooze without a snoozed_until timestamp');
        return { rule_id: input.rule_id, snoozed_until: until };
      },
    ),
    detectorAction<ExceptionInput, ExceptionOutcome>(
      detector,
      'detector.add_exception',
      'write',
      (input, c) => ({
        method: 'POST',
        path: `${rulesPath(c)}/${segment(input.rule_id)}/exceptions`,
        scopes: ['detector:exceptions:write'],
        body: {
          field: input.field,
          value: input.value,
          ...(input.reason === undefined ? {} : { reason: input.reason }),
          ...(input.expires_at === undefined ? {} : { expires_at: input.expires_at }),
        },
        changes: true,
      }),
      (body) => exceptionOutcome(body),
    ),
  ];
}
