/**
 * Runs the `svc` command line in-process (runtime/cli/commands.ts `runSvc`) with captured
 * output, for tests of a command's parsing, output and exit status without a child process.
 */
import { runSvc } from '../../runtime/cli/commands.ts';

export type CliRun = { code: number; out: string; err: string };

/** `svc <args...>` with `env` as its whole environment. */
export async function svc(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runSvc(args, { out: (t) => (out += t), err: (t) => (err += t), env });
  return { code, out, err };
}
