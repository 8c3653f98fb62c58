/**
 * The `svc` command line (CONTRACTS.md sections 1 and 4):
 *   svc serve            start API and/or worker per SVC_ROLE
 *   svc migrate          apply database migrations and exit
 *   svc audit verify     recompute both hash chains from their tables and from the events
 *   svc openapi          print the OpenAPI document /openapi.json serves, without a server (openapi.ts)
 *   svc dev token ...    print a dev exchange token (dev identity only)
 *   svc dev gateway ...  local gateway minting request-bound assertions
 *   svc dev receiver ... local notify.webhook receiver verifying signatures
 *   svc dev edge-waf ... local stand-in of the edge WAF API the edge_waf pack speaks
 *   svc pack ...         integration pack publishing: keygen, build, sign, index, verify (pack.ts)
 */
import { pino } from 'pino';
import { upgradeNotice } from '../../adapters/db/embedded-upgrade.ts';
import { openDatabase } from '../../adapters/db/connect.ts';
import { startService } from '../boot.ts';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../migrate.ts';
import { runAuditVerify } from './audit-verify.ts';
import { runDevGateway } from './dev-gateway.ts';
import { runDevEdgeWaf } from './dev-edge-waf.ts';
import { runDevReceiver } from './dev-receiver.ts';
import { runDevToken } from './dev-token.ts';
import { openApiDocumentText } from './openapi.ts';
import { runPack } from './pack.ts';

const usage =
  'usage: svc serve | svc migrate | svc audit verify | svc openapi | svc dev token|gateway|receiver|edge-waf [options] | svc pack keygen|build|sign|index|verify [options]';

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === 'serve') {
    const config = loadConfig();
    const log = pino({ level: config.logLevel });
    const service = await startService(config, process.env, log);
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
    return;
  }
  if (command === 'migrate') {
    const config = loadConfig();
    const opened = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir });
    try {
      const upgraded = upgradeNotice(opened.dataDir);
      if (upgraded) process.stdout.write(`${upgraded}\n`);
      const applied = await migrateToLatest(opened.db);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    } finally {
      await opened.close();
    }
    return;
  }
  if (command === 'audit' && sub === 'verify' && rest.length === 0) {
    process.exitCode = await runAuditVerify(loadConfig(), process.stdout);
    return;
  }
  if (command === 'openapi' && sub === undefined) {
    process.stdout.write(await openApiDocumentText(process.env));
    return;
  }
  if (command === 'dev' && sub === 'token') return runDevToken(rest, process.env);
  if (command === 'dev' && sub === 'gateway') return runDevGateway(rest, process.env);
  if (command === 'dev' && sub === 'receiver') return runDevReceiver(rest);
  if (command === 'dev' && sub === 'edge-waf') return runDevEdgeWaf(rest, process.env);
  if (command === 'pack') {
    process.exitCode = await runPack(argv.slice(1), process.env);
    return;
  }
  process.stderr.write(`${usage}\n`);
  process.exitCode = 2;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
