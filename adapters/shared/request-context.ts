/**
 * The request a piece of work is done for, carried across awaits with AsyncLocalStorage,
 * so that every log line written while an HTTP request is served names its request id
 * (docs/operations.md "Request ids") without passing it through every function.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const requests = new AsyncLocalStorage<string>();

/** Runs `work` as part of the request `requestId`; what it awaits and starts stays part of it. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return requests.run(requestId, work);
}

/** The id of the request the current code runs for, or undefined outside any request (the worker's loops). */
export function currentRequestId(): string | undefined {
  return requests.getStore();
}
