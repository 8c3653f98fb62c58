/**
 * What the default role matrix (docs/configuration.md "Caller tokens"; adapters/identity/permissions.ts)
 * lets the caller's highest role (`GET /auth/me` `role`) do, so a page spares them controls the API
 * would refuse. The API decides either way, and its refusal of a forced request is shown in words.
 */
import type { Me } from './api-shapes.ts';

type Role = Me['role'];

/** `manage_cases` and `run_runbooks`: every role but viewer. */
export const mayWork = (role: Role): boolean => role !== null && role !== 'viewer';

/** `approve_runbooks`: deciding approval gates and releasing containment. */
export const mayApprove = (role: Role): boolean => role === 'approver' || role === 'admin';
