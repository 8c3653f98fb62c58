/**
 * The `svc` command tree (CONTRACTS.md sections 1 and 4; docs/operations.md "The svc command"):
 *   svc serve            start API and/or worker per SVC_ROLE
 *   svc migrate          apply database migrations and exit
 *   svc audit verify     recompute both hash chains from their tables and from the events
 *   svc openapi          print the OpenAPI document /openapi.json serves, without a server
 *   svc dev token|gateway|receiver|edge-waf   local development helpers (dev identity only)
 *   svc pack keygen|build|sign|index|verify   integration pack publishing
 *   svc completion       print a bash/zsh completion script
 *
 * Parsing is yargs'; every handler imports its module when it runs, so `--help`,
 * `--version` and a usage error load nothing of the service. Exit statuses: 0 done
 * (help and version included), 1 the command failed or refused, 2 bad usage.
 */
import yargs, { type Argv } from 'yargs';
import type { PackArgs } from './pack.ts';
import { serviceVersion } from '../version.ts';

/** Where a run of `svc` writes and what environment it reads. */
export type CliIo = { out: (text: string) => void; err: (text: string) => void; env: NodeJS.ProcessEnv };

/** The exit status of a usage error (an unknown command or option, a missing argument). */
export const USAGE_EXIT = 2;

const port = (fallback: number) => ({ type: 'number', requiresArg: true, default: fallback, describe: 'port to listen on (0 picks a free one)' }) as const;
const grant = { type: 'string', array: true, requiresArg: true, describe: 'role[:team], repeatable (admin, analyst, responder, viewer)' } as const;

/**
 * Runs `svc` with `args` (the arguments after the program name) and resolves with its exit
 * status. Help, version and results go to `io.out`; usage errors and failures to `io.err`
 * as `svc: <message>`. Never rejects. A long-running command (`serve`, `dev gateway`)
 * resolves once it is up and ends the process itself on SIGINT or SIGTERM.
 */
export async function runSvc(args: string[], io: CliIo): Promise<number> {
  let status = 0;
  let printed = '';
  try {
    // With a parse callback yargs hands help, version and completion text over instead of printing it.
    await svcCommands(io, (code) => {
      status = code;
    }).parseAsync(args, {}, (_error, _argv, output) => {
      printed = output;
    });
    if (printed !== '') io.out(`${printed}\n`);
    return status;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (isUsageError(error)) {
      io.err(`svc: ${message}\nrun '${usageHint(args)} --help' for usage\n`);
      return USAGE_EXIT;
    }
    io.err(`svc: ${message}\n`);
    return 1;
  }
}

/** What the parser refused: a message yargs reports without an error of its own. */
class UsageError extends Error {
  override name = 'UsageError';
}

// The parser's own failures are UsageError (see `.fail`) or yargs' YError; anything else came from a handler.
const isUsageError = (error: unknown): boolean => error instanceof UsageError || (error instanceof Error && error.name === 'YError');

const commandWords = new Set([
  'serve',
  'migrate',
  'audit',
  'verify',
  'openapi',
  'dev',
  'token',
  'gateway',
  'receiver',
  'edge-waf',
  'pack',
  'keygen',
  'build',
  'sign',
  'index',
  'completion',
]);

/** `svc` and the command words the user typed before anything else, for the hint after a usage error. */
function usageHint(args: string[]): string {
  const words: string[] = [];
  for (const arg of args) {
    if (!commandWords.has(arg)) break;
    words.push(arg);
  }
  return ['svc', ...words].join(' ');
}

function svcCommands(io: CliIo, exit: (code: number) => void): Argv {
  const out = io.out;
  return yargs()
    .scriptName('svc')
    .usage('$0 <command> [options]\n\nThe incident-response service: alert intake, cases, runbooks, containment.')
    .version(serviceVersion())
    .alias('h', 'help')
    .strict()
    .fail((message, error) => {
      throw error ?? new UsageError(message);
    })
    .wrap(null)
    .epilogue('Exit status: 0 done, 1 failed or refused, 2 bad usage. Configuration comes from the environment (docs/operations.md).')
    .command(
      'serve',
      'start the API and/or the worker (SVC_ROLE) until SIGINT or SIGTERM',
      (y) => y,
      async () => {
        const { runServe } = await import('./serve.ts');
        await runServe(io.env);
      },
    )
    .command(
      'migrate',
      'apply the database migrations and exit',
      (y) => y,
      async () => {
        const { runMigrate } = await import('./migrate.ts');
        await runMigrate(io.env, out);
      },
    )
    .command('audit', 'check the audit trail', (y) =>
      y
        .command(
          'verify',
          'recompute both hash chains from their tables and from the events (exit 1 when one is broken)',
          (v) => v,
          async () => {
            const [{ runAuditVerify }, { loadConfig }] = await Promise.all([import('./audit-verify.ts'), import('../config.ts')]);
            exit(await runAuditVerify(loadConfig(io.env), out));
          },
        )
        .demandCommand(1, 'audit needs a subcommand: verify'),
    )
    .command(
      'openapi',
      'print the OpenAPI 3.1 document /openapi.json serves, without a server',
      (y) => y,
      async () => {
        const { openApiDocumentText } = await import('./openapi.ts');
        out(await openApiDocumentText(io.env));
      },
    )
    .command(
      'runbook-schema',
      'print the JSON Schema of a runbook document that /schemas/runbook.json serves (docs/configuration.md "Runbook editor support")',
      (y) => y,
      async () => {
        const { runbookJsonSchemaText } = await import('../../adapters/runbooks/json-schema.ts');
        out(runbookJsonSchemaText());
      },
    )
    .command(
      'case-report-schema',
      'print the JSON Schema of the case report GET /cases/<id>/report?format=json answers (docs/configuration.md "Case report")',
      (y) => y,
      async () => {
        const { caseReportJsonSchemaText } = await import('../../adapters/reports/json-schema.ts');
        out(caseReportJsonSchemaText());
      },
    )
    .command('dev', 'local development helpers (dev identity; refused in production)', (y) => devCommands(y, io))
    .command('pack', 'integration pack publishing (docs/integration-packs.md)', (y) => packCommands(y, io, exit))
    .completion('completion', 'print a bash/zsh completion script (source <(svc completion))')
    .demandCommand(1, 'a command is required');
}

function devCommands(y: Argv, io: CliIo): Argv {
  return y
    .command(
      'token',
      'print an exchange token signed by the dev identity',
      (c) =>
        c
          .option('email', { type: 'string', requiresArg: true, describe: "the person's email" })
          .option('grant', grant)
          .option('ttl', { type: 'number', requiresArg: true, describe: 'lifetime in seconds (default 43200)' })
          .option('scope', { type: 'string', requiresArg: true, array: true, describe: 'scopes, repeatable or space-separated (default: every scope)' })
          .option('identity-service', { type: 'boolean', describe: "the identity service's own token (no person; needs --scope)" }),
      async (a) => {
        const { runDevToken } = await import('./dev-token.ts');
        await runDevToken({ email: a.email, grant: a.grant, ttl: a.ttl, scope: a.scope, identityService: a.identityService }, io.env, io.out);
      },
    )
    .command(
      'gateway',
      'a local gateway that mints request-bound assertions for one person',
      (c) =>
        c
          .option('host', { type: 'string', requiresArg: true, default: '127.0.0.1', describe: 'address to listen on' })
          .option('port', port(8081))
          .option('target', { type: 'string', requiresArg: true, default: 'http://127.0.0.1:8080', describe: 'the service to forward to' })
          .option('email', { type: 'string', requiresArg: true, describe: "the person's email" })
          .option('name', { type: 'string', requiresArg: true, describe: "the person's name (default: the email's local part)" })
          .option('grant', grant),
      async (a) => {
        const { runDevGateway } = await import('./dev-gateway.ts');
        await runDevGateway({ host: a.host, port: a.port, target: a.target, email: a.email, name: a.name, grant: a.grant }, io.env);
      },
    )
    .command(
      'receiver',
      'a local notify.webhook receiver that verifies and prints each delivery',
      (c) =>
        c
          .option('host', { type: 'string', requiresArg: true, default: '127.0.0.1', describe: 'address to listen on' })
          .option('port', port(9000))
          .option('secret', { type: 'string', requiresArg: true, describe: "the webhook connection's secret" }),
      async (a) => {
        const { runDevReceiver } = await import('./dev-receiver.ts');
        await runDevReceiver({ host: a.host, port: a.port, secret: a.secret });
      },
    )
    .command(
      'edge-waf',
      'a local stand-in of the edge WAF API the edge_waf pack speaks',
      (c) =>
        c
          .option('port', port(8787))
          .option('token', { type: 'string', requiresArg: true, describe: 'the bearer token it accepts (else SVC_DEV_EDGE_WAF_TOKEN)' }),
      async (a) => {
        const { runDevEdgeWaf } = await import('./dev-edge-waf.ts');
        await runDevEdgeWaf({ port: a.port, token: a.token }, io.env);
      },
    )
    .demandCommand(1, 'dev needs a subcommand: token, gateway, receiver or edge-waf');
}

function packCommands(y: Argv, io: CliIo, exit: (code: number) => void): Argv {
  const run = async (args: PackArgs) => {
    const { runPack } = await import('./pack.ts');
    exit(await runPack(args, io.env, io));
  };
  const file = { type: 'string', describe: 'the pack file (YAML)', demandOption: true } as const;
  const dir = { type: 'string', describe: 'the registry folder', demandOption: true } as const;
  return y
    .command(
      'keygen',
      'a new ed25519 key: its seed to --out (mode 0600), its public key printed',
      (c) => c.option('out', { type: 'string', requiresArg: true, demandOption: true, describe: 'where to write the private key' }),
      (a) => run({ sub: 'keygen', out: a.out }),
    )
    .command(
      'build <pack>',
      'validate a pack and write its trailing integrity block; prints the digest',
      (c) => c.positional('pack', file).option('out', { type: 'string', requiresArg: true, describe: 'write here instead of over the pack' }),
      (a) => run({ sub: 'build', file: a.pack, out: a.out }),
    )
    .command(
      'sign <pack>',
      'write <pack>.sig, the signature over the built file',
      (c) =>
        c.positional('pack', file).option('key', { type: 'string', requiresArg: true, demandOption: true, describe: 'the private key file (svc pack keygen)' }),
      (a) => run({ sub: 'sign', file: a.pack, key: a.key }),
    )
    .command(
      'index <dir>',
      'write <dir>/index.yaml (pack-registry version 1)',
      (c) => c.positional('dir', dir),
      (a) => run({ sub: 'index', dir: a.dir }),
    )
    .command(
      'verify <dir>',
      'verify a registry folder as the service does, and that its index is current',
      (c) =>
        c.positional('dir', dir).option('public-key', { type: 'string', requiresArg: true, describe: 'base64 ed25519 public key (else SVC_PACK_PUBLIC_KEY)' }),
      (a) => run({ sub: 'verify', dir: a.dir, publicKey: a.publicKey }),
    )
    .demandCommand(1, 'pack needs a subcommand: keygen, build, sign, index or verify');
}
