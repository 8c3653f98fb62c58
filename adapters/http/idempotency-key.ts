/**
 * The `Idempotency-Key` request header of the bulk routes (docs/configuration.md "Bulk
 * operations"): the first request with a key runs and its answer is kept; a later one by
 * the same caller with the same key and the same body gets that answer again (header
 * `Idempotent-Replayed: true`) and runs nothing; a request that failed without an answer
 * frees its key for a retry. Keys live in the store the MCP tool
 * server uses (adapters/http/mcp-server/idempotency.ts), per caller and route, for
 * SVC_MCP_IDEMPOTENCY_HOURS.
 */
import type { Context } from 'hono';
import * as v from 'valibot';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import { argumentsDigest, claimKey, type IdempotencyStore } from './mcp-server/idempotency.ts';
import type { AppEnv } from './context.ts';

const keySchema = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/**
 * Runs `run` once per `Idempotency-Key` of the caller on `route` (a key-less request just
 * runs). `body` is what must match for a replay.
 *
 * @throws ValidationFailed 422 for a key that is not 1 to 200 characters;
 *   DomainError 409 `idempotency_key_reused` (the key came with another body) or
 *   `idempotency_key_in_progress` (its first request has not answered yet).
 */
export async function onceByIdempotencyKey(
  c: Context<AppEnv>,
  store: IdempotencyStore,
  route: string,
  body: Record<string, unknown>,
  run: () => Promise<Response>,
): Promise<Response> {
  const header = c.req.header('idempotency-key');
  if (header === undefined) return run();
  if (!v.is(keySchema, header)) {
    throw new ValidationFailed([{ loc: ['header', 'Idempotency-Key'], msg: 'must be text of 1 to 200 characters', type: 'value_error' }]);
  }
  const call = { subject: c.get('principal').subject, tool: route, key: header, digest: argumentsDigest(body) };
  const begun = await claimKey(store, call, 'Idempotency-Key');
  if (begun.kind === 'replay') {
    return new Response(begun.answer.text, { status: begun.answer.status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } });
  }
  let answer: Response;
  try {
    answer = await run();
  } catch (error) {
    // Failed before answering: the key is freed, and a retry runs (each operation is idempotent on what it already did).
    await store.release(call);
    throw error;
  }
  // A failure to keep the answer leaves the key pending ("in progress") until purged: never run twice.
  await store.finish(call, { status: answer.status, text: await answer.clone().text() });
  return answer;
}
