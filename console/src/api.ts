/**
 * The console's one way to the API: same origin, below SVC_BASE_PATH. In production the
 * gateway adds the request-bound assertion to each request; in development `svc dev
 * gateway` does (CONTRACTS.md section 4). A failure throws {@link ApiError} with a message
 * in words (errors.ts).
 */
import { basePath } from './config.ts';
import { ApiError, errorCode, errorMessage } from './errors.ts';

export { ApiError };

/** Sends one request; `body` is sent as JSON unless it is FormData. Resolves the parsed JSON answer (null for 204). */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; query?: Record<string, string | number | boolean | null | undefined> } = {},
): Promise<T> {
  const url = new URL(`${basePath}${path}`, window.location.origin);
  for (const [key, value] of Object.entries(init.query ?? {}))
    if (value !== null && value !== undefined && value !== '') url.searchParams.set(key, String(value));
  const isForm = init.body instanceof FormData;
  let answer: Response;
  try {
    answer = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.body === undefined || isForm ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : isForm ? (init.body as FormData) : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, null, 'The service could not be reached. Check your connection.');
  }
  const text = await answer.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!answer.ok) throw new ApiError(answer.status, errorCode(json), errorMessage(answer.status, json));
  return json as T;
}

/** The URL of an API path, for links the browser follows itself (downloads). */
export const apiUrl = (path: string): string => `${basePath}${path}`;
