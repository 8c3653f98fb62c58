/**
 * An integration pack test (SPEC.md "Integration packs": POST
 * /integration-packs/registry/<pack_id>/test, "Test pack runs an action only against a
 * test-mode connection ... an unproven check is never a pass"): the static rows of
 * domain/integration-packs/pack-test.ts, then per action
 * - `connection`: the connection named for the action's transport. None named is
 *   `skipped`; one that does not exist, is of another kind, cannot be read or has no
 *   `config.test_mode: true` (config-rules.ts) is a `fail`, and nothing runs against it.
 * - `execution`, only when the action compiles and its connection passed: the action runs
 *   once for real through customActionDefinition, the code a run uses, with the first
 *   fixture's input. An effectful action without a fixture is `skipped`; so is a read
 *   without a fixture that has required inputs (one without runs with no input). It
 *   passes when the action succeeds and every declared output comes back with its type.
 *   An arbitrary-tier action runs only for a global administrator (else `skipped`).
 *
 * Actions run one after another, each bounded by its spec's `timeout_s` (and retried
 * within it as its `max_attempts` says, as in a run). With no `idempotency_key` in the
 * spec, the Idempotency-Key an HTTP action sends is derived from the pack, the action and
 * this test's fresh id, so a retry within the test is deduplicated and the next test is not.
 * Details name outputs, never their values, so a `redact` output never shows.
 */
import * as v from 'valibot';
import { isArbitraryTier } from '../../domain/custom-actions/decide.ts';
import type { IntegrationPack } from '../../domain/integration-packs/pack.ts';
import { EFFECTFUL_WITHOUT_FIXTURE, isEffectful, type PackTestRow, staticActionChecks } from '../../domain/integration-packs/pack-test.ts';
import { ActionFailure, deliveryIdOf, type ResolvedConnection } from '../actions/action.ts';
import { customActionDefinition, type CustomActionDeps } from '../actions/custom-action.ts';

/** The connection a pack test uses for each transport, by name; an absent one skips that transport's connection and execution. */
export type PackTestConnections = { http?: string; ssh?: string };

export type PackTestDeps = {
  /** The named connection with its secret decrypted, or null when there is none (the connection store's `resolveByName`). */
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  /** What a custom action runs with: the service's guarded outbound fetch and its oauth2 token source (ssh needs none). */
  actionDeps: CustomActionDeps;
  /** Whether the tester is a global administrator: only one runs an arbitrary-tier action, as in a run (where an admin approves it first). */
  mayRunArbitrary: boolean;
  /** A fresh id for this test (a UUID), from which the derived idempotency keys come. */
  newId: () => string;
  now: () => Date;
};

type Transport = 'http' | 'ssh';
type ConnectionVerdict = { status: 'pass'; detail: string; connection: ResolvedConnection } | { status: 'fail' | 'skipped'; detail: string };

/**
 * Every row of the test of `pack`, action by action in the pack's order: `compiles`,
 * `fixtures` and `template` (one per fixture), `connection`, `execution`. `pack` is the
 * parsed document (integrationPackSchema). Never throws for what an action or a
 * connection does: each failure is a `fail` row with its reason.
 */
export async function runPackTest(pack: IntegrationPack, connectionNames: PackTestConnections, deps: PackTestDeps): Promise<PackTestRow[]> {
  const testId = deps.newId();
  const verdicts = new Map<Transport, Promise<ConnectionVerdict>>();
  const verdictFor = (transport: Transport) => {
    let verdict = verdicts.get(transport);
    if (!verdict) {
      verdict = checkConnection(transport, connectionNames[transport], deps.resolveConnection);
      verdicts.set(transport, verdict);
    }
    return verdict;
  };

  const rows: PackTestRow[] = [];
  for (const [index, action] of pack.actions.entries()) {
    const checks = staticActionChecks(pack, index);
    const { spec } = checks;
    const row = (check: 'connection' | 'execution', fixture: string | null, status: PackTestRow['status'], detail: string): PackTestRow => ({
      action: spec.name,
      check,
      fixture,
      status,
      detail,
    });
    rows.push(...checks.rows);
    const connection = await verdictFor(spec.transport);
    rows.push(row('connection', null, connection.status, connection.detail));

    const fixture = action.fixtures[0] ?? null;
    const skip = (detail: string) => rows.push(row('execution', fixture?.name ?? null, 'skipped', detail));
    if (!checks.compiles) {
      skip('not run: the action does not compile');
      continue;
    }
    if (connection.status !== 'pass') {
      skip(`not run: no test-mode ${spec.transport} connection passed`);
      continue;
    }
    if (isArbitraryTier(spec) && !deps.mayRunArbitrary) {
      skip('not run: an arbitrary-tier action runs only for a global administrator');
      continue;
    }
    const required = spec.inputs.filter((i) => i.required).map((i) => i.name);
    if (fixture === null && isEffectful(spec)) {
      skip(EFFECTFUL_WITHOUT_FIXTURE);
      continue;
    }
    if (fixture === null && required.length > 0) {
      skip(`not run: no fixture gives the required inputs ${required.join(', ')}`);
      continue;
    }

    const definition = customActionDefinition(spec, deps.actionDeps);
    const input = v.safeParse(definition.input, fixture?.input ?? {});
    if (!input.success) {
      rows.push(
        row(
          'execution',
          fixture?.name ?? null,
          'fail',
          `input refused: ${input.issues.map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.') || 'input'}: ${i.message}`).join('; ')}`,
        ),
      );
      continue;
    }
    const where = `connection '${connection.connection.name}'`;
    try {
      const output = await definition.execute(input.output, {
        runId: `pack-test/${pack.name}/${testId}`,
        stepId: spec.name,
        attempt: 1,
        deliveryId: deliveryIdOf(`pack-test/${pack.name}/${testId}`, spec.name, 1, null),
        caseId: null,
        connection: connection.connection,
        signal: AbortSignal.timeout(spec.timeout_s * 1000),
        cases: null,
        approval: null,
        resume: null,
        now: deps.now,
      });
      const missing = spec.outputs.filter((o) => output[o.name] === null || output[o.name] === undefined).map((o) => `${o.name} (${o.type})`);
      if (missing.length > 0) {
        rows.push(
          row('execution', fixture?.name ?? null, 'fail', `ran on ${where}, but these outputs are missing or not of their type: ${missing.join(', ')}`),
        );
      } else {
        const outputs = spec.outputs.map((o) => o.name);
        const said = outputs.length === 0 ? 'the action declares no outputs' : `outputs ${outputs.join(', ')} have their declared types`;
        rows.push(row('execution', fixture?.name ?? null, 'pass', `ran on ${where}: ${said}`));
      }
    } catch (error) {
      const reason = error instanceof ActionFailure ? `${error.type}: ${error.message}` : error instanceof Error ? error.message : String(error);
      rows.push(row('execution', fixture?.name ?? null, 'fail', `failed on ${where}: ${reason}`));
    }
  }
  return rows;
}

async function checkConnection(
  transport: Transport,
  name: string | undefined,
  resolve: (name: string) => Promise<ResolvedConnection | null>,
): Promise<ConnectionVerdict> {
  if (name === undefined) return { status: 'skipped', detail: `no test-mode connection named for ${transport}` };
  let connection: ResolvedConnection | null;
  try {
    connection = await resolve(name);
  } catch (error) {
    return { status: 'fail', detail: `connection '${name}' cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (connection === null) return { status: 'fail', detail: `connection '${name}' does not exist` };
  if (connection.kind !== transport) return { status: 'fail', detail: `connection '${name}' is ${connection.kind}, the action needs ${transport}` };
  if (connection.config.test_mode !== true) {
    return { status: 'fail', detail: `connection '${name}' is not in test mode (config.test_mode): a pack test never runs against it` };
  }
  return { status: 'pass', detail: `connection '${name}' is a ${transport} connection in test mode`, connection };
}
