/**
 * Audit entries for admin changes made through routes (SPEC.md "Audit entry";
 * adapters/commands/audit.ts `record`): written after the change commits, and projected
 * before the route answers, so `GET /audit` right after shows it.
 */
import type { AuditAction, AuditActor, AuditTarget } from '../../domain/audit/events.ts';
import { auditActorOf } from '../commands/audit.ts';
import type { Principal } from '../identity/principal.ts';
import type { HttpDeps } from './deps.ts';

/** The change's non-secret facts; the caller decides what is safe to name (keys, never secret values). */
export type AuditedChange = { action: AuditAction; target: AuditTarget | null; team?: string | null; detail: Record<string, unknown> };

/**
 * Appends `change` as an audit entry by `principal` and waits until it is projected.
 * Rejects (the route answers 500) when the append fails; the change itself stays.
 */
export async function recordAudit(deps: Pick<HttpDeps, 'audit' | 'waitFor'>, principal: Principal, change: AuditedChange): Promise<void> {
  await recordAuditBy(deps, auditActorOf(principal), change);
}

/** recordAudit for an actor that is not the request's token: a person acting through chat, or identity acting for one. */
export async function recordAuditBy(deps: Pick<HttpDeps, 'audit' | 'waitFor'>, actor: AuditActor, change: AuditedChange): Promise<void> {
  const position = await deps.audit.record({ action: change.action, actor, target: change.target, team: change.team ?? null, detail: change.detail });
  await deps.waitFor(position);
}

/** The member names of a change body, secrets named only by the key (`secret`), sorted. */
export const changedKeys = (body: Record<string, unknown>): string[] =>
  Object.keys(body)
    .filter((k) => body[k] !== undefined)
    .sort();
