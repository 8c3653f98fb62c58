/**
 * Concurrent writes inside one projector transaction. A transaction must not end while
 * one of its statements is still to be issued: a chain of writes still running when the
 * batch rolls back would send its next statement outside the transaction (on a pipelined
 * connection, adapters/db/pipelined.ts, even after the ROLLBACK). So a projection that
 * runs writes concurrently waits for all of them, even after one failed.
 */

/**
 * Waits until every item has settled (`false` stands for a write not needed), then
 * throws the failure that came first in time: in a failed transaction the statements
 * behind it fail too, as aborted, and the first failure names the cause.
 */
export async function settleAll(items: readonly (Promise<unknown> | false)[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  await Promise.all(
    items.map((item) =>
      item === false
        ? undefined
        : item.catch((error: unknown) => {
            failure ??= { error };
          }),
    ),
  );
  if (failure) throw failure.error;
}
