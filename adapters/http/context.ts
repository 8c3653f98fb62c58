/**
 * Hono environment shared by every route: the authenticated principal is set by
 * the auth middleware before any route handler runs.
 */
import type { Principal } from '../identity/principal.ts';

export type AppEnv = {
  Variables: {
    principal: Principal;
    /** This request's id (X-Request-Id: the caller's when it sent a safe one, else a new UUID). */
    requestId: string;
  };
};
