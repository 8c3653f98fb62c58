/**
 * `svc openapi`: prints the OpenAPI 3.1 document `/openapi.json` serves (SPEC.md
 * "Conventions"; docs/architecture.md "OpenAPI document"), with no socket opened and nothing of the
 * configured data touched. The document comes from the routes themselves, so the command
 * builds the API in process on a throwaway embedded database in a temporary directory,
 * asks it for the document and removes the directory again.
 *
 * Only the variables that shape the document are read from `env` (the base path and the
 * case statuses and severities, see {@link documentShapers}); a database URL, identity or
 * secret key of the caller's environment is never used, so the command also runs where
 * the service's own configuration would refuse a start (NODE_ENV=production).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startService } from '../boot.ts';
import { loadConfig } from '../config.ts';

/** The environment variables whose values appear in the document. */
export const documentShapers = ['SVC_BASE_PATH', 'SVC_CASE_STATUSES', 'SVC_CASE_CLOSED_STATUSES', 'SVC_CASE_MERGED_STATUSES', 'SVC_CASE_SEVERITIES'];

/** The document as `/openapi.json` answers it for `env`, pretty-printed JSON text with a final newline. */
export async function openApiDocumentText(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-openapi-'));
  try {
    const own: NodeJS.ProcessEnv = { SVC_DATA_DIR: dir, SVC_ROLE: 'api' };
    for (const name of documentShapers) if (env[name] !== undefined) own[name] = env[name];
    const config = loadConfig(own);
    const service = await startService(config, own, pino({ level: 'silent' }), { listen: false });
    try {
      const request = service.request;
      if (!request) throw new Error('the API was not built');
      const answer = await request(new Request(`http://svc.invalid${config.basePath}/openapi.json`));
      if (!answer.ok) throw new Error(`/openapi.json answered ${answer.status}`);
      return `${JSON.stringify(await answer.json(), null, 2)}\n`;
    } finally {
      await service.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
