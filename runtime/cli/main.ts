/**
 * The `svc` program (bin/svc.js runs its compiled form, dist/svc.js): runs the command tree
 * of commands.ts on this process's arguments, standard streams and environment, and leaves
 * its exit status in `process.exitCode` so a long-running command keeps the process alive.
 */
import { runSvc } from './commands.ts';

// `svc openapi | head` closes the pipe early: that ends the output, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runSvc(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
});
