/**
 * The runbook DSL as the engine sees it after parsing (SPEC.md "Runbook"): every
 * optional field carries its default, so no consumer re-applies them.
 */

/** A YAML scalar as it may appear in an alert trigger condition. */
export type Scalar = string | number | boolean;

/** Fires for alerts whose facts match every condition key (SPEC.md "Triggers"). */
export type AlertTrigger = { type: 'alert'; conditions: Record<string, Scalar | Scalar[]> };

/** How a run starts; a schedule has exactly one of `cron` and `interval_s` (seconds). */
export type Trigger = AlertTrigger | { type: 'manual' } | { type: 'schedule'; cron: string | null; interval_s: number | null };

/** A parameter of a manual run. */
export type RunbookInput = {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'list' | 'object';
  required: boolean;
  description: string;
};

/** What a failed step does to its run; `goto` names the step to rerun from. */
export type OnError = { kind: 'fail' } | { kind: 'continue' } | { kind: 'goto'; target: string };

/**
 * One step. `action` is null exactly for branch steps, `when` is set exactly for them;
 * `timeout_s` is seconds, `approval.timeout_h` hours (null: the install default).
 */
export type StepDefinition = {
  id: string;
  kind: 'action' | 'branch';
  action: string | null;
  when: string | null;
  needs: string[];
  when_branch: 'true' | 'false' | null;
  with: Record<string, unknown>;
  timeout_s: number;
  retries: number;
  on_error: OnError;
  approval: { roles: string[]; timeout_h: number | null; message: string | null } | null;
  autonomous: boolean;
  for_each: string | null;
  ui: { x: number; y: number } | null;
};

/** A parsed, valid runbook. */
export type RunbookDefinition = {
  id: string;
  name: string;
  description: string;
  version: number;
  enabled: boolean;
  trigger: Trigger;
  inputs: RunbookInput[];
  steps: StepDefinition[];
};

/** One validation problem; `loc` is the path into the YAML document (`[]` for the whole). */
export type RunbookError = { loc: (string | number)[]; msg: string };
