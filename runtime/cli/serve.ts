/**
 * `svc serve`: starts the API and/or the worker per SVC_ROLE (CONTRACTS.md section 1) and
 * runs until SIGINT or SIGTERM, which close everything in order (exit 0; 1 when the close fails).
 */
import { startService } from '../boot.ts';
import { loadConfig } from '../config.ts';
import { serviceLogger } from '../logger.ts';

/** Starts the service of `env`'s configuration; rejects when the configuration is refused or a part fails to start. */
export async function runServe(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  const log = serviceLogger(config.logLevel);
  const service = await startService(config, env, log);
  const shutdown = () => {
    log.info('shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
