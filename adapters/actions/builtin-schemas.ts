/**
 * Input and output schemas of the built-in actions this build does not execute yet
 * (SPEC.md "Action registry entry", "Managed containment actions", "Ban-list built-in
 * actions", "Generic actions"). Runbook validation checks a step's literal `with`
 * values against the input schema, and GET /actions publishes both as JSON Schema, so
 * a runbook written today keeps validating when the implementation lands. Where
 * SPEC.md names fields they are used as named; the rest are this service's choice.
 */
import * as v from 'valibot';
import { aiDataClasses } from '../../domain/ai/settings.ts';
import { jsonRecord } from '../shared/shapes.ts';

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const id = text(200);
const timestamp = v.pipe(v.string(), v.isoTimestamp());
/** Longest rule snooze, seconds. */
const MAX_SNOOZE_S = 30 * 86_400;
/**
 * A managed containment target: the call shape shared by the four response families. An
 * identity may be an email, up to 320 characters as its normalization takes
 * (domain/response-policy/targets.ts); the others fit a DNS name's 253.
 */
function containment(target: 'ip' | 'host' | 'domain' | 'identity', withTtl: boolean): v.GenericSchema {
  const entries: v.ObjectEntries = { [target]: text(target === 'identity' ? 320 : 253), reason: v.optional(text(1000)) };
  if (withTtl) entries.ttl_seconds = v.pipe(v.number(), v.integer(), v.minValue(1));
  return v.strictObject(entries);
}
const containmentOutput = v.object({ target: v.string(), enforced: v.boolean(), enforcement_performed: v.boolean(), effect_id: v.nullable(v.string()) });
const statusOutput = v.object({ target: v.string(), enforced: v.boolean(), enforcement_performed: v.literal(false), state: v.string() });

/** Input and output schema per action name. */
export const builtinSchemas: Record<string, { input: v.GenericSchema; output: v.GenericSchema }> = {
  'ai.agent': {
    input: v.strictObject({
      goal: text(4000),
      tools: v.optional(v.array(id)),
      max_steps: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50))),
      // The data classes the goal and the tool results carry (SPEC.md "AI data-class gating": the agent's are its step's).
      data_classes: v.optional(v.array(v.picklist(aiDataClasses))),
      max_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(1_000_000))),
    }),
    output: v.object({
      summary: v.string(),
      tool_calls: v.array(v.object({ tool: v.string(), ok: v.boolean() })),
      stopped_for_approval: v.boolean(),
      stop_reason: v.picklist(['finished', 'write_intent', 'max_steps', 'token_budget', 'time']),
    }),
  },
  'ai.triage': {
    input: v.strictObject({ instructions: v.optional(text(4000)) }),
    // SPEC.md's five fields, then the rest of the record stored on the case (adapters/actions/ai-triage.ts).
    output: v.object({
      verdict: v.string(),
      summary: v.string(),
      suggested_runbook: v.nullable(v.string()),
      evidence_refs: v.array(v.string()),
      unverified_evidence_refs: v.array(v.string()),
      confidence: v.number(),
      error_code: v.nullable(v.string()),
      provider: v.string(),
      model: v.string(),
      output_digest: v.string(),
      invocation_id: v.string(),
    }),
  },
  'detector.add_exception': {
    input: v.strictObject({
      rule_id: id,
      field: text(200),
      value: v.union([v.string(), v.number()]),
      reason: v.optional(text(1000)),
      expires_at: v.optional(timestamp),
    }),
    output: v.object({
      outcome: v.picklist(['applied', 'pending_review', 'indeterminate']),
      exception_id: v.nullable(v.string()),
      proposal_id: v.nullable(v.string()),
    }),
  },
  'detector.comment_alert': { input: v.strictObject({ alert_id: id, comment: text(20_000) }), output: v.object({ comment_id: v.string() }) },
  'detector.get_alert': { input: v.strictObject({ alert_id: id }), output: v.object({ alert: v.record(v.string(), v.unknown()) }) },
  'detector.snooze_rule': {
    input: v.strictObject({
      rule_id: id,
      duration_s: v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(MAX_SNOOZE_S)),
      reason: v.optional(text(1000)),
    }),
    output: v.object({ rule_id: v.string(), snoozed_until: v.string() }),
  },
  'mcp.call': {
    input: v.strictObject({ tool: id, arguments: v.optional(jsonRecord(v.unknown())) }),
    output: v.object({ content: v.array(v.unknown()), structured_content: v.nullable(v.record(v.string(), v.unknown())) }),
  },
  'response.domain_block': { input: containment('domain', true), output: containmentOutput },
  'response.domain_unblock': { input: containment('domain', false), output: containmentOutput },
  'response.domain_status': { input: containment('domain', false), output: statusOutput },
  'response.host_isolate': { input: containment('host', true), output: containmentOutput },
  'response.host_release': { input: containment('host', false), output: containmentOutput },
  'response.host_status': { input: containment('host', false), output: statusOutput },
  'response.identity_disable': { input: containment('identity', true), output: containmentOutput },
  'response.identity_enable': { input: containment('identity', false), output: containmentOutput },
  'response.identity_status': { input: containment('identity', false), output: statusOutput },
  'response.ip_block': { input: containment('ip', true), output: containmentOutput },
  'response.ip_unblock': { input: containment('ip', false), output: containmentOutput },
  'response.ip_status': { input: containment('ip', false), output: statusOutput },
};
