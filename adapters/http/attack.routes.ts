/**
 * `GET /attack/techniques` (ours: SPEC.md "Case" stores technique ids only): the ATT&CK
 * techniques this install can name, from its catalog (SVC_ATTACK_CATALOG,
 * docs/configuration.md "ATT&CK catalog"), so the console shows `T1059.001` as
 * PowerShell. `{catalog: {name, version, techniques} | null, items: [{id, name, tactics,
 * deprecated}]}`, items by id (`T1059` before `T1059.001` before `T1071`). Without a
 * catalog: `catalog: null` and no items. Every role that reads cases may read it. A
 * configured catalog that cannot be read is 503 `attack_catalog_unavailable`, its reason in
 * words, and is tried again on the next request.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { AttackCatalogError } from '../../domain/attack/catalog.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';

export const attackTechniquesSchema = v.pipe(
  v.strictObject({
    /** The catalog as its bundle names it (`Enterprise ATT&CK`, `17.1`), with how many techniques it holds; null without one. */
    catalog: v.nullable(v.strictObject({ name: v.nullable(v.string()), version: v.nullable(v.string()), techniques: v.number() })),
    items: v.array(
      v.strictObject({
        id: v.string(),
        name: v.string(),
        /** The tactics' short names (`privilege-escalation`), as ATT&CK writes them. */
        tactics: v.array(v.string()),
        /** Deprecated in the catalog: an old case may still carry it. */
        deprecated: v.boolean(),
      }),
    ),
  }),
  v.metadata({ ref: 'AttackTechniques' }),
);

/** What the technique catalog route reads of the service (adapters/http/deps.ts). */
export type AttackRouteDeps = Pick<HttpDeps, 'attackCatalog' | 'permissions'>;

export function attackRoutes(deps: AttackRouteDeps) {
  return new Hono<AppEnv>().get(
    '/attack/techniques',
    describeRoute({
      summary: 'The ATT&CK techniques this install can name (SVC_ATTACK_CATALOG); none without a catalog',
      tags: ['cases'],
      responses: {
        200: jsonAnswer(attackTechniquesSchema, 'The catalog and its techniques by id'),
        503: jsonAnswer(errorBodySchema, 'attack_catalog_unavailable: the configured catalog cannot be read or is not ATT&CK (the reason in `detail`)'),
      },
    }),
    requirePermission('read', 'svc:cases:read', deps.permissions),
    async (c) => {
      let catalog: Awaited<ReturnType<HttpDeps['attackCatalog']['load']>>;
      try {
        catalog = await deps.attackCatalog.load();
      } catch (error) {
        if (error instanceof AttackCatalogError) {
          throw new DomainError('attack_catalog_unavailable', 503, `the ATT&CK catalog (SVC_ATTACK_CATALOG) cannot be used: ${error.message}`);
        }
        throw error;
      }
      if (!catalog) return c.json({ catalog: null, items: [] } satisfies v.InferOutput<typeof attackTechniquesSchema>);
      const items = [...catalog.techniques.values()];
      return c.json({
        catalog: { name: catalog.name, version: catalog.version, techniques: items.length },
        items,
      } satisfies v.InferOutput<typeof attackTechniquesSchema>);
    },
  );
}
