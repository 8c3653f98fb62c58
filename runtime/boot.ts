/**
 * Boots the service (CONTRACTS.md section 1): the core (database, migrations, secrets,
 * event store), the read models, the outbound clients, automation and case work, then
 * the API and the worker per `SVC_ROLE`. Each part is wired in runtime/wiring/; this
 * module only orders them. Returns a handle whose `close()` stops everything in order.
 */
import type { Logger } from 'pino';
import type { OpenedDatabase } from '../adapters/db/connect.ts';
import { systemClock, type Clock } from '../adapters/shared/clock.ts';
import type { Projector } from '../projections/projector.ts';
import type { Config } from './config.ts';
import { identitySource } from './identity-source.ts';
import { startApi, type Api } from './wiring/api.ts';
import { startAutomation, type Automation } from './wiring/automation.ts';
import { createCaseWork } from './wiring/cases.ts';
import { openCore } from './wiring/core.ts';
import { createPeers } from './wiring/peers.ts';
import { startReadModels } from './wiring/projector.ts';
import { startWorkerRole, type WorkerRole } from './wiring/worker-role.ts';

export type Service = {
  url: string | null;
  /**
   * The API's handler as the server calls it (null without an API): a fetch `Request` in, its
   * `Response` out, with no socket. Tests call the API in process through it.
   */
  request: ((request: Request) => Promise<Response>) | null;
  /** The worker's metrics endpoint (SVC_WORKER_METRICS_PORT), null without a worker. */
  workerMetricsUrl: () => string | null;
  opened: OpenedDatabase;
  projector: Projector;
  close: () => Promise<void>;
};

/**
 * What a caller may swap in: the clock (tests move a manual one), and `listen` false to
 * build the API without opening its socket (no live WebSocket then; `request` serves it).
 */
export type ServiceOptions = { clock?: Clock; listen?: boolean };

export async function startService(config: Config, env: NodeJS.ProcessEnv, log: Logger, options: ServiceOptions = {}): Promise<Service> {
  const identity = await identitySource(config, env, log);
  const now = options.clock ?? systemClock;
  const core = await openCore(config, env, log, now);
  const readModels = startReadModels(core);
  const peers = createPeers(core);
  let automation: Automation | null = null;
  let api: Api | null = null;
  let workerRole: WorkerRole | null = null;
  /** Stops everything started so far, in order; also what a failed start-up runs before it rethrows. */
  const close = async () => {
    await api?.stopServing();
    automation?.stopRefreshing();
    await workerRole?.stop();
    await api?.stopLive();
    await peers.outbound.close();
    await core.events.settle();
    await readModels.projector.stop();
    await core.vacuum?.stop();
    await readModels.published();
    await automation?.customActions.idle();
    await core.events.close();
    await core.opened.close();
  };
  try {
    automation = await startAutomation(core, peers, readModels);
    const work = createCaseWork(core, automation);
    if (config.role !== 'worker') {
      const workerBeating = () => workerRole !== null && now().getTime() - workerRole.metrics.lastBeatAt() <= config.workerLeaseMs;
      api = await startApi({ core, identity, peers, readModels, automation, work, workerBeating, listen: options.listen !== false });
    }
    if (config.role !== 'api') workerRole = await startWorkerRole(core, peers, readModels, automation, work);
  } catch (error) {
    // A port in use (say) must not leave the database open: the process would never exit.
    await close().catch(() => undefined);
    throw error;
  }
  return {
    url: api?.url ?? null,
    request: api?.request ?? null,
    workerMetricsUrl: () => workerRole?.metricsUrl ?? null,
    opened: core.opened,
    projector: readModels.projector,
    close,
  };
}
