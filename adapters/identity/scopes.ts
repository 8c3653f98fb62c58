/**
 * The OAuth-style scopes this service understands on exchange and service tokens
 * (CONTRACTS.md section 2, "scope must cover the route").
 */

/** The areas a scope can name; each has a `read` and a `write` scope. */
export const scopeAreas = ['cases', 'alerts', 'runbooks', 'runs', 'connections', 'admin'] as const;

/** Every scope of the service: `svc:<area>:read` and `svc:<area>:write` per area. */
export const scopes: readonly string[] = scopeAreas.flatMap((area) => [`svc:${area}:read`, `svc:${area}:write`]);

/**
 * Whether the `granted` scopes of a token cover the `required` scope of a route.
 *
 * `granted` null means an assertion (browser callers are limited by role only),
 * which covers everything. A `svc:<area>:write` grant also covers `svc:<area>:read`,
 * since a caller allowed to change an area must be able to see it.
 *
 * @example scopeCovers(['svc:cases:write'], 'svc:cases:read') // true
 */
export function scopeCovers(granted: string[] | null, required: string): boolean {
  if (granted === null) return true;
  if (granted.includes(required)) return true;
  return required.endsWith(':read') && granted.includes(`${required.slice(0, -':read'.length)}:write`);
}
