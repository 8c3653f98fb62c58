/**
 * What this service may ask the suite's workload exchange for (SPEC.md "Peer endpoints",
 * `GET /peer/v1/exchanges`): each audience with its scopes. The exchange client asks for
 * nothing else (`UNDECLARED_EXCHANGE_SCOPE`), so this table is both the document the
 * identity service reads and the limit the client keeps. Only scopes the code uses are
 * declared: the detector's alerts (`POST /alerts/backfill`, `detector.get_alert`,
 * `detector.comment_alert`), rules (`detector.snooze_rule`) and exceptions
 * (`detector.add_exception`); identity's live grants (`GET /peer/v1/approvals`) and
 * approval settings (the gate deadline default), adapters/identity-service/client.ts.
 */
import * as v from 'valibot';

/** `contract_version` of the exchanges document (SPEC.md "Versioning"). */
export const EXCHANGES_CONTRACT_VERSION = 1;

/** Audience to the scopes this service requests for it. */
export const DECLARED_EXCHANGES: Readonly<Record<string, readonly string[]>> = {
  detector: ['detector:alerts:read', 'detector:alerts:write', 'detector:exceptions:write', 'detector:rules:write'],
  identity: ['identity:approval-settings:read', 'identity:grants:read'],
};

/** The exchanges document of `GET /peer/v1/exchanges`: each audience this service asks the exchange for, with its scopes. */
export const exchangesDocumentSchema = v.strictObject({
  contract_version: v.literal(EXCHANGES_CONTRACT_VERSION),
  product: v.string(),
  exchanges: v.record(v.string(), v.array(v.string())),
});

/** The exchanges document: `{contract_version: 1, product, exchanges}` with every audience's scopes sorted. */
export function exchangesDocument(
  product: string,
  declared: Readonly<Record<string, readonly string[]>> = DECLARED_EXCHANGES,
): v.InferOutput<typeof exchangesDocumentSchema> {
  const exchanges = Object.fromEntries(
    Object.keys(declared)
      .sort()
      .map((audience) => [audience, [...(declared[audience] ?? [])].sort()]),
  );
  return { contract_version: EXCHANGES_CONTRACT_VERSION, product, exchanges };
}

/** Whether every scope of `scopes` is declared for `audience`. */
export function isDeclared(audience: string, scopes: readonly string[], declared: Readonly<Record<string, readonly string[]>> = DECLARED_EXCHANGES): boolean {
  const allowed = Object.hasOwn(declared, audience) ? declared[audience] : undefined;
  return allowed !== undefined && scopes.length > 0 && scopes.every((s) => allowed.includes(s));
}
