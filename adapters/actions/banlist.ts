/**
 * `banlist.block`, `banlist.status`, `banlist.unblock` (SPEC.md "Ban-list built-in actions
 * (ssh)"; docs/configuration.md "Ban list"): the ban-list product's host CLI (CrowdSec's
 * `cscli decisions ...`, run with the host's machine credentials) over the step's `ssh`
 * connection. `config.cscli` names the CLI (default `cscli`, a bare path).
 *
 * - block: `decisions add --ip|--range <v> --duration <n>s --type ban --reason <reason>`
 *   (a range goes as `--range` whether given as `range` or as `ip`, the managed vocabulary's name),
 *   the reason carrying a unique per-invocation marker; then `decisions list -o json` and
 *   the exact id of the one non-simulated ban whose reason holds the marker. No such ban:
 *   the step fails. The TTL is explicit and checked before any egress (blank, zero,
 *   malformed or over 30 days refused, in dry runs too); `--bypass-allowlist` is never sent.
 *   Its compensation is `banlist.unblock`: bound as a managed block, the effect's TTL fills
 *   `ttl` and the recorded `decision_id` is what the reversal deletes.
 * - status: one decision by exact id; an absent id is the `not_found` state, not a failure.
 * - unblock: `decisions delete --id <id>` of that id only, then lists again and fails
 *   unless the id is gone; an id already absent is a clean no-op.
 */
import { randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { shellQuote, sshExec, sshTarget } from './ssh-command.ts';

/** Longest block, seconds (SPEC.md "Limits": over 30 days refused). */
export const MAX_BLOCK_TTL_S = 30 * 86_400;

const DURATION_UNITS: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };

/**
 * Seconds of a TTL: a positive whole number of seconds, or a duration such as `90m`,
 * `1h30m`, `7d`; null for blank, zero, negative, fractional or malformed values.
 */
export function ttlSeconds(ttl: unknown): number | null {
  if (typeof ttl === 'number') return Number.isInteger(ttl) && ttl > 0 ? ttl : null;
  if (typeof ttl !== 'string') return null;
  const text = ttl.trim();
  if (/^\d+$/.test(text)) return Number(text) > 0 ? Number(text) : null;
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') return null;
  const seconds = ['d', 'h', 'm', 's'].reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * (DURATION_UNITS[unit] ?? 0), 0);
  return seconds > 0 ? seconds : null;
}

const ttl = v.pipe(
  v.union([v.number(), v.string()], 'must be seconds or a duration such as 1h'),
  v.check((t) => ttlSeconds(t) !== null, 'must be a positive whole number of seconds or a duration such as 90m, 1h, 7d'),
  v.check((t) => (ttlSeconds(t) ?? 0) <= MAX_BLOCK_TTL_S, `must be at most 30 days (${MAX_BLOCK_TTL_S} s)`),
);
const isRange = (s: string): boolean => {
  try {
    ipaddr.parseCIDR(s);
    return true;
  } catch {
    return false;
  }
};
/** An address, or a range: the managed vocabulary supplies any ip target under `ip` (SPEC.md "Bound-action input vocabulary"). */
const ip = v.pipe(
  v.string(),
  v.trim(),
  v.check((s) => (ipaddr.isValid(s) && !s.includes('/')) || isRange(s), 'must be an IPv4 or IPv6 address, or a CIDR range'),
);
const range = v.pipe(v.string(), v.trim(), v.check(isRange, 'must be a CIDR range such as 203.0.113.0/24'));
const decisionId = v.pipe(v.number(), v.integer(), v.minValue(1));

const blockInput = v.pipe(
  v.strictObject({ ip: v.optional(ip), range: v.optional(range), ttl, reason: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))) }),
  v.check((i) => (i.ip === undefined) !== (i.range === undefined), 'exactly one of ip and range is required'),
);
type BlockInput = v.InferOutput<typeof blockInput>;

/** The CLI's target flag and value: a range, whether given as `range` or as `ip`, goes as `--range`. */
const targetArgs = (step: BlockInput): [string, string] => {
  const value = step.ip ?? step.range ?? '';
  return [value.includes('/') ? '--range' : '--ip', value];
};
const idInput = v.strictObject({ decision_id: decisionId });
type IdInput = v.InferOutput<typeof idInput>;

/** One decision of `cscli decisions list -o json` (alerts, each with `decisions[]`). */
type Decision = { id: number; value: string; scope: string; type: string; duration: string; scenario: string; origin: string; simulated: boolean };

const decisionView = v.object({
  id: v.number(),
  value: v.string(),
  scope: v.string(),
  type: v.string(),
  duration: v.string(),
  origin: v.string(),
  simulated: v.boolean(),
});

function cli(action: string, context: Pick<ActionContext, 'connection'>): string {
  const configured = context.connection?.config.cscli ?? 'cscli';
  if (typeof configured !== 'string' || !/^[A-Za-z0-9_./-]+$/.test(configured)) {
    throw new ActionFailure('connection_invalid', `${action}: config.cscli must be a bare command path matching ^[A-Za-z0-9_./-]+$`, false);
  }
  return configured;
}

/** Runs the CLI with `args` (each quoted); a non-zero exit fails with the CLI's own error line. */
async function run(action: string, context: ActionContext, args: string[]) {
  const result = await sshExec(action, context, [cli(action, context), ...args.map(shellQuote)].join(' '));
  if (result.exit_code !== 0) {
    const said = result.stderr.trim().split('\n').filter(Boolean).pop() ?? `exited with ${result.exit_code}`;
    throw new ActionFailure('command_failed', `${action}: ${said.slice(0, 500)}`, false);
  }
  return result;
}

/**
 * Every decision the CLI lists; a list that is not the CLI's JSON fails the step.
 * `--limit 0`: the CLI otherwise lists the newest 100 alerts only, and an id past them
 * would read as absent.
 */
async function listDecisions(action: string, context: ActionContext, filter: string[] = []): Promise<Decision[]> {
  const { stdout } = await run(action, context, ['decisions', 'list', '-o', 'json', '--limit', '0', ...filter]);
  let alerts: unknown;
  try {
    alerts = JSON.parse(stdout.trim() === '' ? 'null' : stdout);
  } catch {
    throw new ActionFailure('response_invalid', `${action}: the decision list is not JSON`, false);
  }
  if (alerts === null) return [];
  if (!Array.isArray(alerts)) throw new ActionFailure('response_invalid', `${action}: the decision list is not a JSON array`, false);
  return alerts.flatMap((a: { decisions?: unknown }) => (Array.isArray(a?.decisions) ? (a.decisions as Decision[]) : []));
}

const shown = (d: Decision) => ({ id: d.id, value: d.value, scope: d.scope, type: d.type, duration: d.duration, origin: d.origin, simulated: d.simulated });

const preview =
  <Input>(action: string, args: (step: Input) => string[]) =>
  async (step: Input, context: ActionContext) => {
    const target = sshTarget(context, action);
    return { host: target.host, port: target.port, username: target.username, command: cli(action, context), args: args(step) };
  };

const blockArgs = (step: BlockInput, reason: string) => [
  'decisions',
  'add',
  ...targetArgs(step),
  '--duration',
  `${ttlSeconds(step.ttl)}s`,
  '--type',
  'ban',
  '--reason',
  reason,
];

export const banlistBlock: ActionDefinition<BlockInput, Record<string, unknown>> = {
  name: 'banlist.block',
  connectionKind: 'ssh',
  risk: 'write',
  bounded: true,
  compensation: 'banlist.unblock',
  input: blockInput,
  output: v.object({
    decision_id: v.number(),
    value: v.string(),
    ttl_seconds: v.number(),
    marker: v.string(),
    enforced: v.literal(true),
    enforcement_performed: v.literal(true),
    decision: decisionView,
  }),
  async execute(step, context) {
    const marker = `svc:${randomUUID()}`;
    const reason = `${step.reason ?? `svc run ${context.runId} step ${context.stepId}`} [${marker}]`;
    await run('banlist.block', context, blockArgs(step, reason));
    const value = (step.ip ?? step.range ?? '').toLowerCase();
    const listed = await listDecisions('banlist.block', context, targetArgs(step));
    const ours = listed.filter(
      (d) =>
        d.type === 'ban' && d.simulated === false && typeof d.scenario === 'string' && d.scenario.includes(marker) && String(d.value).toLowerCase() === value,
    );
    const decision = ours[0];
    if (ours.length !== 1 || !decision) {
      throw new ActionFailure(
        'ban_not_confirmed',
        `${'banlist.block'}: ${ours.length === 0 ? 'no' : 'more than one'} active ban carrying marker ${marker} is listed for ${value}`,
        false,
      );
    }
    return {
      decision_id: decision.id,
      value: decision.value,
      ttl_seconds: ttlSeconds(step.ttl) ?? 0,
      marker,
      enforced: true,
      enforcement_performed: true,
      decision: shown(decision),
    };
  },
  preview: preview('banlist.block', (step: BlockInput) => blockArgs(step, `${step.reason ?? 'svc run <run> step <step>'} [svc:<marker>]`)),
};

export const banlistStatus: ActionDefinition<IdInput, Record<string, unknown>> = {
  name: 'banlist.status',
  connectionKind: 'ssh',
  risk: 'read',
  input: idInput,
  output: v.object({
    decision_id: v.number(),
    state: v.picklist(['active', 'not_found']),
    enforced: v.boolean(),
    enforcement_performed: v.literal(false),
    decision: v.nullable(decisionView),
  }),
  async execute(step, context) {
    const decision = (await listDecisions('banlist.status', context)).find((d) => d.id === step.decision_id);
    return {
      decision_id: step.decision_id,
      state: decision ? 'active' : 'not_found',
      enforced: decision !== undefined && decision.type === 'ban' && !decision.simulated,
      enforcement_performed: false,
      decision: decision ? shown(decision) : null,
    };
  },
  preview: preview('banlist.status', () => ['decisions', 'list', '-o', 'json', '--limit', '0']),
};

export const banlistUnblock: ActionDefinition<IdInput, Record<string, unknown>> = {
  name: 'banlist.unblock',
  connectionKind: 'ssh',
  risk: 'write',
  bounded: true,
  input: idInput,
  output: v.object({ decision_id: v.number(), deleted: v.boolean(), state: v.literal('not_found'), enforcement_performed: v.boolean() }),
  async execute(step, context) {
    const before = await listDecisions('banlist.unblock', context);
    if (!before.some((d) => d.id === step.decision_id))
      return { decision_id: step.decision_id, deleted: false, state: 'not_found', enforcement_performed: false };
    await run('banlist.unblock', context, ['decisions', 'delete', '--id', String(step.decision_id)]);
    if ((await listDecisions('banlist.unblock', context)).some((d) => d.id === step.decision_id)) {
      throw new ActionFailure('unblock_not_confirmed', `${'banlist.unblock'}: decision ${step.decision_id} is still listed after its deletion`, true);
    }
    return { decision_id: step.decision_id, deleted: true, state: 'not_found', enforcement_performed: true };
  },
  preview: preview('banlist.unblock', (step: IdInput) => ['decisions', 'delete', '--id', String(step.decision_id)]),
};
