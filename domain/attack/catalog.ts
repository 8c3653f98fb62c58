/**
 * The ATT&CK technique catalog: technique ids to their names and tactics, read from a
 * STIX 2.1 bundle as MITRE publishes ATT&CK (the `enterprise-attack.json` of
 * mitre-attack/attack-stix-data, or a mobile or ICS bundle). The service checks a case's
 * technique ids by shape only (SPEC.md "Case": `T<digits>(.<digits>)`); this catalog is
 * what lets it name them (docs/configuration.md "ATT&CK catalog"). Pure: the bundle comes
 * in parsed.
 *
 * Read: every `attack-pattern` object with a `mitre-attack` external reference whose
 * `external_id` is a technique id, its `name`, and the `phase_name`s of its `mitre-attack`
 * kill chain phases as tactics. Revoked techniques are left out (their id now names
 * another); deprecated ones are kept and marked, as an old case may still carry them. The
 * `x-mitre-collection` object, when present, names the catalog and its version.
 */
import * as v from 'valibot';

/** One technique: `T1059.001`, `PowerShell`, `['execution']`. */
export type AttackTechnique = { id: string; name: string; tactics: string[]; deprecated: boolean };

/** A catalog: its name and version as the bundle states them (null when it does not), and its techniques by id, in id order. */
export type AttackCatalog = { name: string | null; version: string | null; techniques: ReadonlyMap<string, AttackTechnique> };

/** A bundle that is not STIX ATT&CK data, with the reason in words. */
export class AttackCatalogError extends Error {
  override readonly name = 'AttackCatalogError';
}

/** An ATT&CK technique id as a case stores it (SPEC.md "Case"): `T<digits>` or `T<digits>.<digits>`. */
export const TECHNIQUE_ID = /^T\d+(\.\d+)?$/;

/** Technique ids in ATT&CK's order: `T1059` before `T1059.001` before `T1071`. */
const byId = new Intl.Collator('en', { numeric: true });

const bundleSchema = v.object({ type: v.literal('bundle'), objects: v.array(v.unknown()) });

const referenceSchema = v.object({ source_name: v.string(), external_id: v.optional(v.string()) });
const phaseSchema = v.object({ kill_chain_name: v.string(), phase_name: v.string() });
const attackPatternSchema = v.object({
  type: v.literal('attack-pattern'),
  name: v.pipe(v.string(), v.trim(), v.minLength(1)),
  external_references: v.optional(v.array(v.unknown()), []),
  kill_chain_phases: v.optional(v.array(v.unknown()), []),
  revoked: v.optional(v.boolean(), false),
  x_mitre_deprecated: v.optional(v.boolean(), false),
});
const collectionSchema = v.object({ type: v.literal('x-mitre-collection'), name: v.optional(v.string()), x_mitre_version: v.optional(v.string()) });

/** The technique id of an attack pattern's `mitre-attack` reference, or null. */
function techniqueId(references: readonly unknown[]): string | null {
  for (const reference of references) {
    const parsed = v.safeParse(referenceSchema, reference);
    if (parsed.success && parsed.output.source_name === 'mitre-attack' && TECHNIQUE_ID.test(parsed.output.external_id ?? '')) {
      return parsed.output.external_id ?? null;
    }
  }
  return null;
}

function tactics(phases: readonly unknown[]): string[] {
  const names: string[] = [];
  for (const phase of phases) {
    const parsed = v.safeParse(phaseSchema, phase);
    if (parsed.success && parsed.output.kill_chain_name === 'mitre-attack' && !names.includes(parsed.output.phase_name)) names.push(parsed.output.phase_name);
  }
  return names;
}

/**
 * The catalog in `bundle` (a parsed STIX 2.1 bundle). Where one id appears twice, a
 * current technique wins over a deprecated one, else the first stays. Throws
 * `AttackCatalogError` when `bundle` is not a STIX bundle or holds no ATT&CK technique.
 */
export function catalogFromStix(bundle: unknown): AttackCatalog {
  const parsed = v.safeParse(bundleSchema, bundle);
  if (!parsed.success) throw new AttackCatalogError('not a STIX bundle: an object with "type": "bundle" and an "objects" list');
  let name: string | null = null;
  let version: string | null = null;
  const techniques = new Map<string, AttackTechnique>();
  for (const object of parsed.output.objects) {
    const collection = v.safeParse(collectionSchema, object);
    if (collection.success) {
      name ??= collection.output.name ?? null;
      version ??= collection.output.x_mitre_version ?? null;
      continue;
    }
    const pattern = v.safeParse(attackPatternSchema, object);
    if (!pattern.success || pattern.output.revoked) continue;
    const id = techniqueId(pattern.output.external_references);
    if (id === null) continue;
    const technique = { id, name: pattern.output.name, tactics: tactics(pattern.output.kill_chain_phases), deprecated: pattern.output.x_mitre_deprecated };
    const known = techniques.get(id);
    if (!known || (known.deprecated && !technique.deprecated)) techniques.set(id, technique);
  }
  if (techniques.size === 0) throw new AttackCatalogError('the bundle holds no ATT&CK technique (no attack-pattern with a mitre-attack technique id)');
  return { name, version, techniques: new Map([...techniques].sort(([a], [b]) => byId.compare(a, b))) };
}
