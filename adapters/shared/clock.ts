/**
 * The one wall clock of the service (issue 20): everything that needs "now" takes a
 * `Clock` from the composition root (runtime/boot.ts), so tests move time instead of
 * sleeping. Nothing else reads the system time.
 */

/** Returns the current instant; each call may return a later one. */
export type Clock = () => Date;

/** The system time. */
export const systemClock: Clock = () => new Date();
