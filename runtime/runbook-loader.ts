/**
 * Runbooks at start (SPEC.md "Runbook source rules"): builds the stored-runbook catalog
 * and loads the local runbooks directory into it under the version rule of
 * adapters/runbooks/runbook-store.ts. A bad file is reported, never fatal; runbooks
 * stored earlier (by the API or an older file) stay as they are.
 */
import { createRunbookStore, type RunbookStore, type RunbookStoreDeps, type SyncReport } from '../adapters/runbooks/runbook-store.ts';

export async function loadRunbooks(deps: RunbookStoreDeps): Promise<{ store: RunbookStore; report: SyncReport }> {
  const store = createRunbookStore(deps);
  const report = await store.syncDirectory();
  return { store, report };
}
