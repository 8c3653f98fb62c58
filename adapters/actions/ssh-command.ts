/**
 * `ssh.command` with ssh2 (SPEC.md "Generic actions"; issue 5): runs a bare command with
 * arguments on the connection's host. `command` must match `^[A-Za-z0-9_./-]+$` (the
 * input schema, so dry runs refuse it too); each `args` entry is single-quoted on its
 * own, so spaces, quotes, `;` and `$(...)` arrive as one literal argument. A non-zero
 * exit is a step error. Output `{exit_code, stdout, stderr}` (each stream capped at 1 MiB).
 *
 * The `ssh` connection: `config.host`, `config.port` (default 22), `config.username`, and
 * a host-key policy: `config.known_hosts` (OpenSSH known_hosts lines; the server's key
 * must be one of their keys) or `config.accept_unknown_host_key: true`; neither is
 * refused. The secret is the PEM private key; previews and errors never show it. Hosts
 * are admin-configured (often internal), so this edge is not behind the HTTP SSRF guard.
 */
import type { Client, ConnectConfig } from 'ssh2';
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition, type ResolvedConnection } from './action.ts';
import { MAX_RESPONSE_BYTES } from './outbound-http.ts';

const NAME = 'ssh.command';
const input = v.strictObject({
  command: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_./-]+$/, 'must match ^[A-Za-z0-9_./-]+$')),
  args: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(256))),
});
type SshCommandInput = v.InferOutput<typeof input>;
type SshCommandOutput = { exit_code: number; stdout: string; stderr: string };

/** One POSIX shell word: single quotes around it, each `'` written as `'\''`. */
export function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The command line the remote shell runs. */
export function commandLine(step: SshCommandInput): string {
  return [step.command, ...(step.args ?? []).map(shellQuote)].join(' ');
}

type SshTarget = { host: string; port: number; username: string; pinned: Buffer[] | null; connectionName: string; action: string };

/** The host, user and host-key policy of the step's `ssh` connection; ActionFailure `connection_*` when it is missing or incomplete. */
export function sshTarget(context: Pick<ActionContext, 'connection'>, action = NAME): SshTarget {
  const connection = context.connection;
  if (!connection) throw new ActionFailure('connection_missing', `${action} needs an ssh connection`, false);
  const invalid = (why: string) => new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' ${why}`, false);
  if (connection.kind !== 'ssh') throw invalid(`is ${connection.kind}, not ssh`);
  const { host, port = 22, username, known_hosts: knownHosts, accept_unknown_host_key: acceptUnknown } = connection.config;
  if (typeof host !== 'string' || host === '') throw invalid('needs config.host');
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw invalid('has a config.port that is not a port number');
  if (typeof username !== 'string' || username === '') throw invalid('needs config.username');
  if (typeof knownHosts === 'string' && knownHosts.trim() !== '') {
    // known_hosts lines: [markers] hostnames keytype base64-key [comment]; the key blob is what the server presents.
    const pinned = knownHosts
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => l.split(/\s+/).find((w) => /^AAAA[A-Za-z0-9+/=]+$/.test(w)));
    if (pinned.length === 0 || pinned.some((k) => k === undefined)) throw invalid('has config.known_hosts lines without a key');
    return { host, port, username, pinned: pinned.map((k) => Buffer.from(k ?? '', 'base64')), connectionName: connection.name, action };
  }
  if (acceptUnknown === true) return { host, port, username, pinned: null, connectionName: connection.name, action };
  throw invalid('needs a host-key policy: config.known_hosts, or config.accept_unknown_host_key: true');
}

export const sshCommand: ActionDefinition<SshCommandInput, SshCommandOutput> = {
  name: NAME,
  connectionKind: 'ssh',
  risk: 'arbitrary',
  input,
  output: v.object({ exit_code: v.pipe(v.number(), v.integer()), stdout: v.string(), stderr: v.string() }),
  async execute(step, context) {
    const result = await sshExec(NAME, context, commandLine(step));
    if (result.exit_code === 0) return result;
    throw new ActionFailure(
      'command_failed',
      `${NAME}: ${step.command} on ${result.where} ${result.exit_code === -1 ? `ended by signal ${result.signal ?? 'unknown'}` : `exited with ${result.exit_code}`}`,
      false,
    );
  },
  async preview(step, context) {
    const target = sshTarget(context);
    return {
      host: target.host,
      port: target.port,
      username: target.username,
      host_key: target.pinned === null ? 'accept_unknown' : 'pinned',
      command: step.command,
      args: step.args ?? [],
      command_line: commandLine(step),
    };
  },
};

/**
 * The connection probe of an `ssh` connection (POST /connections/<id>/test): connects,
 * checks the host key against the policy and authenticates with the key, then closes
 * without opening a channel. Resolves the host and the policy used; throws the same
 * ActionFailures as the action ('host_key_mismatch', 'auth_failed', 'network_error', ...).
 */
export async function probeSsh(connection: ResolvedConnection, signal: AbortSignal): Promise<Record<string, unknown>> {
  const target = sshTarget({ connection });
  return withSession(target, connection.secret, signal, async (_client, where) => ({
    host: where,
    username: target.username,
    host_key: target.pinned === null ? 'accept_unknown' : 'pinned',
  }));
}

type Reject = (failure: ActionFailure) => void;

/** What a command printed and how it ended; `exit_code` -1 when a signal ended it. */
export type SshExecResult = { exit_code: number; stdout: string; stderr: string; signal: string | null; where: string };

/**
 * Runs `line` (already quoted) on the step's `ssh` connection and resolves however it
 * exits; each stream is capped at 1 MiB. Session failures are ActionFailures named after
 * `action` ('host_key_mismatch', 'auth_failed', 'network_error', 'timeout').
 */
export async function sshExec(action: string, context: Pick<ActionContext, 'connection' | 'signal'>, line: string): Promise<SshExecResult> {
  return withSession(
    sshTarget(context, action),
    context.connection?.secret ?? null,
    context.signal,
    (client, where, reject) =>
      new Promise<SshExecResult>((resolve) => {
        client.exec(line, (error, channel) => {
          if (error) return reject(new ActionFailure('network_error', `${action}: ${where} refused to run a command`, true));
          const out: Buffer[] = [];
          const err: Buffer[] = [];
          let size = 0;
          const keep = (into: Buffer[]) => (chunk: Buffer) => {
            size += chunk.byteLength;
            if (size <= 2 * MAX_RESPONSE_BYTES) into.push(chunk);
          };
          channel.on('data', keep(out));
          channel.stderr.on('data', keep(err));
          channel.on('close', (code: number | null, signal?: string) => {
            resolve({ exit_code: code ?? -1, stdout: cap(out), stderr: cap(err), signal: signal ?? null, where });
          });
        });
      }),
  );
}

/** Opens an authenticated session to `target`, runs `use` on it and always closes it; failures of the session reject what `use` returns. */
async function withSession<T>(
  target: SshTarget,
  privateKey: string | null,
  signal: AbortSignal,
  use: (client: Client, where: string, reject: Reject) => Promise<T>,
): Promise<T> {
  if (!privateKey) throw new ActionFailure('connection_missing', `${target.action}: connection '${target.connectionName}' has no private key`, false);
  // Loaded on the first SSH call, not at every start of the service (docs/operations.md "The compiled build").
  const { default: ssh2 } = await import('ssh2');
  // ssh2's connect() throws, outside every callback, on a key it cannot read: refuse it here, naming no part of it.
  if (ssh2.utils.parseKey(privateKey) instanceof Error) {
    throw new ActionFailure(
      'connection_invalid',
      `${target.action}: the private key of connection '${target.connectionName}' is not an unencrypted OpenSSH, PEM or PPK key`,
      false,
    );
  }
  let hostKeyRefused = false;
  const config: ConnectConfig = {
    host: target.host,
    port: target.port,
    username: target.username,
    privateKey,
    readyTimeout: 15_000,
    hostVerifier: (key: Buffer) => {
      hostKeyRefused = target.pinned !== null && !target.pinned.some((k) => k.equals(key));
      return !hostKeyRefused;
    },
  };
  const client = new ssh2.Client();
  const abort = () => client.end();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await new Promise<T>((resolve, reject) => {
      const where = `${target.host}:${target.port}`;
      client.on('error', (error: Error & { level?: string }) => {
        if (hostKeyRefused)
          return reject(
            new ActionFailure('host_key_mismatch', `${target.action}: the host key of ${where} is not the one pinned in config.known_hosts`, false),
          );
        if (error.level === 'client-authentication')
          return reject(new ActionFailure('auth_failed', `${target.action}: ${where} refused the key of '${target.username}'`, false));
        if (signal.aborted) return reject(new ActionFailure('timeout', `${target.action}: ${where} aborted by the step deadline or cancellation`, true));
        reject(new ActionFailure('network_error', `${target.action}: cannot reach ${where}`, true));
      });
      client.on('close', () => {
        if (signal.aborted) reject(new ActionFailure('timeout', `${target.action}: ${where} aborted by the step deadline or cancellation`, true));
      });
      client.on('ready', () => {
        use(client, where, reject).then(resolve, reject);
      });
      client.connect(config);
    });
  } finally {
    signal.removeEventListener('abort', abort);
    client.end();
  }
}

function cap(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length > MAX_RESPONSE_BYTES ? text.slice(0, MAX_RESPONSE_BYTES) : text;
}
