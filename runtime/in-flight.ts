/**
 * Counts requests being handled, so shutdown can let them finish (their answers wait
 * on the projector and the event store, which must still be running) before the
 * database closes.
 */
export type InFlight<A extends unknown[], R> = {
  handler: (...args: A) => Promise<R>;
  /** Resolves when no request is in flight, or after `timeoutMs`. */
  idle: (timeoutMs: number) => Promise<void>;
};

export function trackInFlight<A extends unknown[], R>(handler: (...args: A) => Promise<R> | R): InFlight<A, R> {
  let count = 0;
  let waiters: (() => void)[] = [];
  const settle = () => {
    if (count > 0) return;
    for (const w of waiters) w();
    waiters = [];
  };
  return {
    handler: async (...args: A) => {
      count++;
      try {
        return await handler(...args);
      } finally {
        count--;
        settle();
      }
    },
    idle: (timeoutMs) =>
      count === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            waiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
  };
}
