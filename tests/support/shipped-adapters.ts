/**
 * Driving a shipped adapter pack the way an operator would, for the pack suites
 * (tests/integration/edge-waf-pack.test.ts, ssh-packet-filter-pack.test.ts): install it
 * from the registry (preview, then install with the preview's token), bind it in the
 * response policy (`publishBinding`; `bindIpAdapter` as `block`/`ip` with an automatic
 * grant up to an hour), and run the one-step runbooks of tests/support/runbook-definitions.ts
 * on a fresh case.
 */
import { expect } from 'vitest';
import { actionListed, callAs, runWhen, type InProcessService, type TestPerson } from './in-process-service.ts';

/** Installs pack `pack` from the registry (preview, then install with its token) and waits until `actions` are listed. */
export async function installPack(svc: InProcessService, who: TestPerson, pack: string, actions: string[]): Promise<void> {
  const preview = await callAs(svc, who, 'POST', `/integration-packs/registry/${pack}/preview`);
  expect(preview.status, preview.text).toBe(200);
  const installed = await callAs(svc, who, 'POST', `/integration-packs/registry/${pack}/install`, { preview_token: preview.body.preview_token });
  expect(installed.status, installed.text).toBe(200);
  for (const action of actions) await actionListed(svc, who, action);
}

/** The `custom.<pack>.block|unblock|status` actions of adapter pack `pack`. */
export const adapterActions = (pack: string) => ({ block: `custom.${pack}.block`, unblock: `custom.${pack}.unblock`, status: `custom.${pack}.status` });

/** A binding of adapter pack `pack`'s actions on `connection` with `parameters` (its status read left out when `withStatus` is false); effect and target types to add. */
export function packBinding(
  pack: string,
  connection: string,
  parameters: AdapterBinding['parameters'],
  withStatus = true,
): Omit<AdapterBinding, 'effect_type' | 'target_type'> {
  const { block, unblock, status } = adapterActions(pack);
  return {
    adapter_id: pack,
    block_action: block,
    unblock_action: unblock,
    status_action: withStatus ? status : null,
    connection_name: connection,
    parameters,
  };
}

/** A response-policy binding of an effect and target type to an adapter's actions on a connection. */
export type AdapterBinding = {
  effect_type: string;
  target_type: string;
  adapter_id: string;
  block_action: string;
  unblock_action: string;
  status_action: string | null;
  connection_name: string;
  parameters: Record<string, string | boolean>;
};

/**
 * Publishes a policy of `binding` alone with `protectedTarget` protected and TTLs from a
 * minute to a day; `automatic` adds a grant running its effect unattended up to an hour.
 */
export async function publishBinding(
  svc: InProcessService,
  who: TestPerson,
  binding: AdapterBinding,
  protectedTarget: { type: string; value: string },
  automatic: boolean,
): Promise<void> {
  const policy = await callAs(svc, who, 'PUT', '/response-policy', {
    protected_targets: [protectedTarget],
    ttl: { min_seconds: 60, max_seconds: 86_400 },
    automatic_grants: automatic ? [{ effect_type: binding.effect_type, target_type: binding.target_type, max_ttl_seconds: 3600 }] : [],
    adapters: [binding],
  });
  expect(policy.status, policy.text).toBe(200);
}

/** The binding of `block`/`ip` to the three actions, published with 10.0.0.0/8 protected and an automatic grant up to an hour. */
export const bindIpAdapter = (svc: InProcessService, who: TestPerson, binding: Omit<AdapterBinding, 'effect_type' | 'target_type'>): Promise<void> =>
  publishBinding(svc, who, { effect_type: 'block', target_type: 'ip', ...binding }, { type: 'ip', value: '10.0.0.0/8' }, true);

/** Installs pack `pack` (whose actions are `custom.<pack>.block|unblock|status`) and publishes a policy binding it on `connection` with `parameters`. */
export async function installAndBindIpAdapter(
  svc: InProcessService,
  who: TestPerson,
  pack: string,
  connection: string,
  parameters: Record<string, string>,
): Promise<void> {
  await installPack(svc, who, pack, Object.values(adapterActions(pack)));
  await bindIpAdapter(svc, who, packBinding(pack, connection, parameters));
}

/** Runs runbook `slug` with `inputs` on a new case until it ends or waits; the run and its `act` step's action-log row. */
export async function runTargetStep(svc: InProcessService, who: TestPerson, slug: string, inputs: Record<string, string>): Promise<{ run: any; step: any }> {
  const c = await callAs(svc, who, 'POST', '/cases', { title: `${slug} ${Object.values(inputs).join(' ')}`, severity: 'high' });
  const queued = await callAs(svc, who, 'POST', `/cases/${c.body.id}/runbooks/${slug}/run`, { inputs });
  expect(queued.status, queued.text).toBe(202);
  const run = await runWhen(svc, who, queued.body.id, /^(succeeded|failed|waiting_approval)$/);
  return { run, step: run.action_log.find((row: any) => row.step_id === 'act') };
}

/** runTargetStep with input `ip`. */
export const runIpStep = (svc: InProcessService, who: TestPerson, slug: string, ip: string): Promise<{ run: any; step: any }> =>
  runTargetStep(svc, who, slug, { ip });

/** The pack test of `pack` without a connection: it has fixture and template rows, every one passes, nothing fails. */
export async function expectFixturesPass(svc: InProcessService, who: TestPerson, pack: string): Promise<void> {
  const tested = await callAs(svc, who, 'POST', `/integration-packs/registry/${pack}/test`, {});
  expect(tested.status, tested.text).toBe(200);
  expect(tested.body.summary.fail, tested.text).toBe(0);
  const rows = tested.body.rows.filter((r: any) => r.check === 'fixtures' || r.check === 'template');
  expect(rows.length).toBeGreaterThan(0);
  expect(
    rows.every((r: any) => r.status === 'pass'),
    tested.text,
  ).toBe(true);
}
