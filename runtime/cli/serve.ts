/**
 * `svc serve`: starts the API and/or the worker per SVC_ROLE (CONTRACTS.md section 1) and
 * runs until SIGINT or SIGTERM, which close everything in order (exit 0; 1 when the close fails).
 */
import module from 'node:module';
import { startService } from '../boot.ts';
import { loadConfig } from '../config.ts';
import { serviceLogger } from '../logger.ts';

/** Starts the service of `env`'s configuration; rejects when the configuration is refused or a part fails to start. */
export async function runServe(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  const log = serviceLogger(config.logLevel);
  const service = await startService(config, env, log);
  // Node writes its compile cache (bin/svc.js) only at a clean exit, and a service is often
  // killed instead (SIGKILL, OOM, a crash loop): without this, every start after one would
  // compile the bundle from source again, a third of the time to ready.
  module.flushCompileCache?.();
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
