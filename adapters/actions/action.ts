/**
 * The contract every runbook action implements (SPEC.md "Action registry entry").
 *
 * The worker validates `with` (already rendered) against `input`, resolves the
 * step's connection, then calls `execute` (live) or `preview` (dry run). Failures
 * are thrown as ActionFailure so the engine can tell retryable from final ones.
 *
 * An action whose effect is (or includes) events in our own store has them in
 * `record`, not in `execute`: the worker appends them in the same `appendMany` as the
 * step's end, so a crash can never leave the effect without the end (which would run
 * the step again) or the end without the effect (docs/architecture.md "Run path").
 */
import { hash } from 'node:crypto';
import type { GenericSchema } from 'valibot';
import type { TriageRecord } from '../../domain/ai/triage.ts';
import type { CustomEffect } from '../../domain/custom-actions/spec.ts';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import type { GateReason, StepApproval } from '../../domain/runs/index.ts';

export type Risk = 'read' | 'write' | 'notify' | 'arbitrary';

/** A connection as actions see it: the secret is decrypted, never logged or rendered. */
export type ResolvedConnection = {
  id: string;
  kind: string;
  name: string;
  base_url: string | null;
  config: Record<string, unknown>;
  secret: string | null;
  /** The secret before the last rotation, while its overlap lasts (SPEC.md "Actions and connections"); else null. */
  previous_secret: string | null;
  /** chat_a only: the bot token messages are posted with (the secret is the signing secret); else null. */
  bot_token: string | null;
};

/**
 * Changes to the run's case an action's `record` may ask for, bound to the case and the
 * runbook as actor. Each call decides against the case as read for this try plus what
 * the step already staged; a call that throws stages nothing. Nothing is written until
 * the worker appends the step's end with them.
 */
export type CaseEffects = {
  /**
   * `case.updated` (tags_add merged into the case's tags), `case.status_changed`,
   * `case.comment_added`, each only when it changes something; resolves
   * `{case_id, changed}` naming the fields that changed (`tags`, `status`, `comment`
   * among them). Throws the Case decider's DomainError (`case_severity_invalid`,
   * `case_status_invalid`) for a severity or status outside configuration.
   */
  update: (changes: {
    title?: string;
    description?: string;
    severity?: string;
    tags_add?: string[];
    status?: string;
    comment?: string;
  }) => Promise<{ case_id: string; changed: string[] }>;
  /** Links a ticket the step opened to the case (`ticket.linked`, the Ticket link aggregate in domain/tickets/). */
  linkTicket: (link: {
    linkId: string;
    provider: 'ticket_a' | 'ticket_b';
    connection: string;
    remoteId: string;
    remoteKey: string;
    url: string | null;
    runId: string;
    stepId: string;
  }) => Promise<void>;
  /** Links a page the step sent to the case (`case.page_linked`). */
  linkPage: (page: { pager: 'pager_a' | 'pager_b'; key: string; connection: string; runId: string; stepId: string }) => Promise<void>;
  /**
   * Records an advisory AI verdict on the case (`case.ai_triage`) with its `ai.triage`
   * audit entry naming the call's `invocationId`; changes no status, severity or owner.
   */
  recordAiTriage: (record: TriageRecord, invocationId: string) => Promise<void>;
};

export type ActionContext = {
  runId: string;
  stepId: string;
  /** The step's execution count (runtime/worker: a crash re-execution is the next attempt). */
  attempt: number;
  /**
   * The identity of the message this call sends (`deliveryIdOf`): the same for every retry
   * and every crash re-execution of one pass of the step, new for each goto pass and for
   * each `for_each` item. An outbound id or key a receiver deduplicates on derives from it.
   */
  deliveryId: string;
  caseId: string | null;
  connection: ResolvedConnection | null;
  /** Aborts when the step's `timeout_s` elapses or the run is cancelled. */
  signal: AbortSignal;
  /** The run's case effects in `record`; null in `execute` and `preview`, and for a run without a case. */
  cases: CaseEffects | null;
  /**
   * What people approved for this step in its current pass (domain/runs/state.ts
   * StepApproval), null when no gate of it was approved. An action with a `gate` decides at
   * execution whether this covers the request it is about to make (`approvalCovers`), and
   * throws ApprovalRequired when it does not.
   */
  approval: StepApproval | null;
  /**
   * What this delivery left when it stopped to ask for the approval the step now holds
   * (ActionGate.resume), else null: an action that resumes checks that `approval` covers
   * the request it stopped at before it goes on.
   */
  resume: Record<string, unknown> | null;
  now: () => Date;
};

/**
 * What an action's gate asks a person to approve: `reason` and `roles` of the gate the
 * driver opens, the `message` approvers read, and `request`, the digest of the concrete
 * request (`requestDigest`) that an approval then covers, and nothing else. `resume`
 * (JSON, kept in the run's `gate.opened`): what an action that stopped mid-way needs to go
 * on from there once approved, given back as `ActionContext.resume`; no secret goes in it.
 */
export type ActionGate = { reason: GateReason; roles: readonly string[]; message: string; request: string; resume?: Record<string, unknown> };

/**
 * The digest an approval binds to: SHA-256 (hex) over the canonical JSON of `request`,
 * which names the action and every field whose change would need a new approval (a
 * containment request's target, TTL and adapter binding; an MCP call's connection, tool
 * and arguments).
 */
export const requestDigest = (request: Record<string, unknown>): string => hash('sha256', canonicalJson(request), 'hex');

/** Whether `approval` (ActionContext.approval) covers the request whose digest is `request`. */
export const approvalCovers = (approval: StepApproval | null, request: string): boolean => approval?.requests.includes(request) === true;

/**
 * Thrown by `execute` when, decided again at that moment, the request needs a person's
 * approval that the step does not hold (an automatic grant withdrawn since the step was
 * admitted, a request that changed since it was approved, an arbitrary-tier action whose
 * approval no admin gave). Not a failure of the step: the run driver sends the step back
 * to a gate with `gate`, and runs it again once that is approved.
 */
export class ApprovalRequired extends Error {
  constructor(readonly gates: readonly ActionGate[]) {
    super(`approval_required: ${gates.map((g) => g.message).join('; ')}`);
    this.name = 'ApprovalRequired';
  }
}

/**
 * The delivery id of `item` (a `for_each` item's 0-based index, null for a step without
 * `for_each`) in pass `pass` (1-based, domain/runs/state.ts StepState) of step `stepId` of
 * run `runId`: 32 base64url characters of SHA-256 over `run/step/pass[/item]`. Stable
 * across retries and crash re-executions, which stay in their pass, so a receiver can
 * drop a redelivery; distinct per pass and item, so it drops nothing else.
 */
export function deliveryIdOf(runId: string, stepId: string, pass: number, item: number | null): string {
  return hash('sha256', `${runId}/${stepId}/${pass}${item === null ? '' : `/${item}`}`, 'base64url').slice(0, 32);
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds actions of every input type; each validates its own input before it runs.
export type ActionDefinition<Input = any, Output = unknown> = {
  name: string;
  connectionKind: string;
  risk: Risk;
  /**
   * A write whose effect is bounded by design (a ban with a short, validated TTL): automatic
   * runs do not gate it (SPEC.md "Ban-list built-in actions": "bounded non-danger").
   */
  bounded?: true;
  /**
   * Every live execution, manual runs included and whatever `autonomous` says, waits for
   * an admin's approval (SPEC.md "Custom action": the arbitrary tier of custom actions).
   */
  adminGate?: true;
  /**
   * What a custom action declares about its vendor effect (`effect`: the enforced state a
   * read reports, the verdicts, ownership); the managed containment actions read it.
   */
  effect?: CustomEffect;
  /**
   * The action that undoes this one (a custom action's `compensation.action`; a ban's
   * `banlist.unblock`): a response policy binding this action as a block must name it as
   * the unblock, so the effect's automatic reversal is the declared compensation.
   */
  compensation?: string;
  /**
   * Whether this live execution waits for a person first, decided on the rendered input
   * before the step starts (a managed containment request no automatic grant covers, an
   * MCP tool outside the connection's read-only tools): the gate to open, or null to run at
   * once (also for a request the action will refuse anyway: nobody is asked to approve what
   * cannot run). `connectionName` is the step's `with.connection` (or the default), if any.
   * A throw means the answer is unknown: the driver asks again, then fails the step with
   * `gate_evaluation_failed`; it never runs the step on it. `execute` decides again and
   * throws ApprovalRequired for a request the step's approval does not cover.
   */
  gate?(input: Input, context: Pick<ActionContext, 'runId' | 'stepId' | 'caseId'> & { connectionName: string | null }): Promise<ActionGate | null>;
  /**
   * A containment adapter (a pack action whose effect type the response policy manages:
   * `block`, `contain`, `disable_identity`): it runs only as a binding's bound action, so a
   * runbook step naming it is refused and protected targets, TTLs and effects are never
   * bypassed (SPEC.md "Managed containment actions").
   */
  managedAdapter?: true;
  /** The connection a step without `with.connection` uses (a custom action's `default_connection`). */
  defaultConnection?: string;
  /**
   * Masks what the action log must not keep: applied by the worker to the step's `input`
   * (the rendered `with`) and `output` wherever the log row gets them, so the step output
   * as stored is the masked one.
   */
  redactLog?: (row: { input: unknown; output: unknown }) => { input: unknown; output: unknown };
  input: GenericSchema<unknown, Input>;
  /** The output's shape; GET /actions publishes it as JSON Schema. */
  output: GenericSchema;
  execute: (input: Input, context: ActionContext) => Promise<Output>;
  /**
   * The action's effect on our own event store, when it has one: stages events through
   * `context.cases` and resolves the step's output from `executed` (what `execute`
   * resolved). Called after a successful `execute` of a live run, and again, with the
   * same `executed` and fresh case state, when appending the staged events lost a
   * version race: it decides and stages, and does nothing else that a second call
   * would repeat. A throw fails the step and drops what the call staged. (A method, so
   * its parameters are checked bivariantly and a typed action fits `ActionDefinition`.)
   */
  record?(input: Input, executed: Output, context: ActionContext): Promise<Output>;
  /** What `execute` would do, with no side effect and no secret in the answer. */
  preview: (input: Input, context: ActionContext) => Promise<Record<string, unknown>>;
};

/** A failed action: `retryable` says whether another attempt could succeed. */
export class ActionFailure extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly retryable: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ActionFailure';
  }
}
