/**
 * The console's one way to the API: same origin, below SVC_BASE_PATH. In production the
 * gateway adds the request-bound assertion to each request; in development `svc dev
 * gateway` does (CONTRACTS.md section 4). A failure throws {@link ApiError} with a message
 * in words (errors.ts).
 *
 * `client` is openapi-fetch typed by the generated `paths` of api-types.ts (console/api-types.ts
 * writes them from /openapi.json), so every path, parameter, body and answer is the
 * document's: `answer(await client.GET('/cases/{id}', { params: { path: { id } } }))`
 * resolves the case or throws. Query values that are null, undefined or '' are left out;
 * a body is sent as JSON, a FormData body as multipart with the browser's boundary.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api-types.ts';
import { basePath } from './config.ts';
import { ApiError, errorCode, errorMessage, errorProblems } from './errors.ts';

export { ApiError };

const unreachable = 'The service could not be reached. Check your connection.';
const unreadable = 'The service sent an answer the console cannot read.';

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** `fetch` for the client: a network failure, or a success whose body is not JSON, as an ApiError in words. */
async function send(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    throw new ApiError(0, null, unreachable);
  }
  if (response.ok && response.status !== 204) {
    const text = await response.clone().text();
    if (text !== '' && !parses(text)) throw new ApiError(response.status, null, unreadable);
  }
  return response;
}

/** The query string of `query`: each value that is not null, undefined or '', as text. */
function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  return search.toString();
}

type CaseList = paths['/cases']['get'];
type CaseListQuery = NonNullable<CaseList['parameters']['query']>;
type StatusChange = paths['/cases/{id}/status']['post'];
type StatusChangeBody = StatusChange['requestBody']['content']['application/json'];

/**
 * The document's paths, with the case vocabulary as text where the console sends it (the
 * `status` and `severity` filters of `GET /cases`, the `status` of `POST /cases/{id}/status`).
 * The vocabulary is configuration (SVC_CASE_STATUSES, SVC_CASE_SEVERITIES): /openapi.json
 * writes the install's lists in as enums, so the committed types hold the default lists,
 * while the console offers the install's own (config.ts) and the API checks them.
 */
type ConsolePaths = Omit<paths, '/cases' | '/cases/{id}/status'> & {
  '/cases': Omit<paths['/cases'], 'get'> & {
    get: Omit<CaseList, 'parameters'> & {
      parameters: Omit<CaseList['parameters'], 'query'> & { query?: Omit<CaseListQuery, 'status' | 'severity'> & { status?: string; severity?: string } };
    };
  };
  '/cases/{id}/status': Omit<paths['/cases/{id}/status'], 'post'> & {
    post: Omit<StatusChange, 'requestBody'> & { requestBody: { content: { 'application/json': Omit<StatusChangeBody, 'status'> & { status: string } } } };
  };
};

export const client = createClient<ConsolePaths>({
  baseUrl: new URL(basePath, window.location.origin).href,
  headers: { accept: 'application/json' },
  fetch: send,
  querySerializer: queryString,
  // FormData goes through untouched: the browser sets the multipart content type and boundary.
  bodySerializer: (body: unknown) => (body instanceof FormData ? body : JSON.stringify(body)),
});

/** What openapi-fetch resolves a request to: the parsed answer on success, the parsed error body otherwise. */
type Sent<Data> = { data?: Data; error?: unknown; response: Response };

function failure(response: Response, error: unknown): ApiError {
  const body = error ?? null;
  return new ApiError(response.status, errorCode(body), errorMessage(response.status, body), errorProblems(body));
}

/** The answer of a request that answers JSON; throws {@link ApiError} when it failed or sent nothing. */
export function answer<Data>({ data, error, response }: Sent<Data>): Data {
  if (!response.ok) throw failure(response, error);
  if (data === undefined) throw new ApiError(response.status, null, unreadable);
  return data;
}

/** The answer of a request whose success has no body (204 No Content): null; throws {@link ApiError} when it failed. */
export function noContent({ error, response }: Sent<undefined>): null {
  if (!response.ok) throw failure(response, error);
  return null;
}

/** The body options that upload `file` as the multipart field `file` (`format: binary`, typed `Blob`). */
export function fileUpload(file: File): { body: { file: Blob }; bodySerializer: (body: { file: Blob }) => FormData } {
  const form = (body: { file: Blob }) => {
    const data = new FormData();
    data.append('file', body.file);
    return data;
  };
  return { body: { file }, bodySerializer: form };
}

/** The URL of an API path, for links the browser follows itself (downloads). */
export const apiUrl = (path: string): string => `${basePath}${path}`;
