/**
 * Parsed runbook definitions for tests of the run engine on plain data (domain/runbooks/
 * model.ts), with the parser's defaults, so a test names only what it is about.
 */
import type { RunbookDefinition, StepDefinition } from '../../domain/runbooks/model.ts';

/** An action step `id` (notify.webhook, no needs, no gate, autonomous) with `over` on top. */
export const stepDefinition = (id: string, over: Partial<StepDefinition> = {}): StepDefinition => ({
  id,
  kind: 'action',
  action: 'notify.webhook',
  when: null,
  needs: [],
  when_branch: null,
  with: {},
  timeout_s: 120,
  retries: 0,
  on_error: { kind: 'fail' },
  approval: null,
  autonomous: true,
  for_each: null,
  ui: null,
  ...over,
});

/** An enabled manual runbook `rb` of `steps`, no inputs, with `over` on top. */
export const runbookDefinition = (steps: StepDefinition[], over: Partial<RunbookDefinition> = {}): RunbookDefinition => ({
  id: 'rb',
  name: 'rb',
  description: '',
  version: 1,
  enabled: true,
  trigger: { type: 'manual' },
  inputs: [],
  steps,
  ...over,
});

/**
 * The YAML text of a runbook `slug` of one autonomous step `call` running `action` with
 * `withMap` (a YAML flow map), on `trigger` (a YAML flow map; manual unless given).
 */
export const oneStepRunbookYaml = (slug: string, action: string, withMap: string, trigger = '{ type: manual }'): string => `
id: ${slug}
name: ${slug}
version: 1
trigger: ${trigger}
steps:
  - id: call
    action: ${action}
    autonomous: true
    with: ${withMap}
`;

/**
 * The YAML text of a manual runbook `slug` whose one step `stepId` (default `gated`) runs
 * `action` with `withMap` (a YAML flow map) behind the human approval gate `approval` (a
 * YAML flow map, default `{ roles: [approver] }`); its name is `name` (default the slug).
 */
export const gatedStepRunbookYaml = (
  slug: string,
  action: string,
  withMap: string,
  approval = '{ roles: [approver] }',
  { stepId = 'gated', name = slug }: { stepId?: string; name?: string } = {},
): string => `
id: ${slug}
name: ${name}
version: 1
trigger: { type: manual }
steps:
  - id: ${stepId}
    action: ${action}
    approval: ${approval}
    with: ${withMap}
`;

/**
 * A manual runbook whose one step `act` calls a managed containment `action` on the run
 * input named `input` (`ip`, `domain` or `host`, passed under the same name), with `extra`
 * more `with` entries (for example `, ttl_seconds: 600`).
 */
export const targetStepRunbookYaml = (slug: string, action: string, input: 'ip' | 'domain' | 'host', extra = ''): string => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
inputs:
  - { name: ${input}, type: string, required: true }
steps:
  - id: act
    action: ${action}
    with: { ${input}: "{{ inputs.${input} }}"${extra} }
`;

/** targetStepRunbookYaml for an `ip` target. */
export const ipStepRunbookYaml = (slug: string, action: string, extra = ''): string => targetStepRunbookYaml(slug, action, 'ip', extra);
