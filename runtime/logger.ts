/**
 * The service's logger: pino's JSON lines on stdout at `level` (LOG_LEVEL), each written
 * while an HTTP request is served carrying that request's `request_id`, the `X-Request-Id`
 * its answer carries (docs/operations.md "Request ids").
 */
import { type DestinationStream, type Logger, pino } from 'pino';
import { currentRequestId } from '../adapters/shared/request-context.ts';

/** A logger at `level` (a pino level name) that adds `request_id` inside a request; lines go to `destination` (default stdout). */
export function serviceLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { request_id: requestId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
