/**
 * A catch-up loop: calls `step` until it reports no progress, then sleeps until a
 * wake-up (an append in this process) or `pollIntervalMs` (appends by other
 * processes), and repeats. Used by the subscription, the projector and the worker.
 */
export type CatchUpLoop = {
  /** Asks the loop to run `step` again soon. */
  wake: () => void;
  /** Stops the loop and waits for the step in flight to finish. */
  stop: () => Promise<void>;
};

export type CatchUpOptions = {
  /** Does one unit of work; resolves true when it made progress (run again at once). */
  step: () => Promise<boolean>;
  pollIntervalMs: number;
  /** Called when `step` throws; the loop backs off one poll interval and continues. */
  onError: (error: unknown) => void;
};

export function startCatchUpLoop(options: CatchUpOptions): CatchUpLoop {
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) {
        pendingWake = false;
        resolve();
        return;
      }
      const timer = setTimeout(finish, options.pollIntervalMs);
      function finish() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = finish;
    });

  const running = (async () => {
    while (!stopped) {
      let progressed = false;
      try {
        progressed = await options.step();
      } catch (error) {
        options.onError(error);
      }
      if (!progressed && !stopped) await sleep();
    }
  })();

  return {
    wake: () => {
      if (wakeUp) wakeUp();
      else pendingWake = true;
    },
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await running;
    },
  };
}
