/**
 * Start-up failures of a listening socket in one line that says what to change
 * (issue 19): a port in use names the port and the variable that moves it, instead of
 * Node's bare `EADDRINUSE`.
 */

/**
 * The error to end start-up with when binding `host`:`port` failed with `error`;
 * `variable` is the setting that chooses the port (`PORT`, `SVC_WORKER_METRICS_PORT`).
 */
export function listenError(error: unknown, where: { host: string; port: number; variable: string }): Error {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const at = `${where.host}:${where.port}`;
  if (code === 'EADDRINUSE') return new Error(`port ${where.port} is already in use on ${where.host}: set ${where.variable} to a free port`);
  if (code === 'EACCES') return new Error(`no permission to listen on ${at}: set ${where.variable} to a port above 1023`);
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${at}: the address is not on this machine`);
  return error instanceof Error ? error : new Error(String(error));
}
