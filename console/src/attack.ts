/**
 * The install's ATT&CK technique names (`GET /attack/techniques`, from SVC_ATTACK_CATALOG;
 * docs/configuration.md "ATT&CK catalog"), read once per tab and shared by the case header
 * and the technique picker. Without a catalog, or while it cannot be read, techniques are
 * shown by id alone: a name is a help to the reader, never a check (the API checks ids by
 * shape only).
 */
import { useEffect, useState } from 'react';
import { answer, client } from './api.ts';

export type Technique = { id: string; name: string; tactics: string[]; deprecated: boolean };
/** The catalog's techniques by id; empty without a catalog. */
export type TechniqueNames = { items: readonly Technique[]; byId: ReadonlyMap<string, Technique> };

const NONE: TechniqueNames = { items: [], byId: new Map() };
let reading: Promise<TechniqueNames> | null = null;

async function read(): Promise<TechniqueNames> {
  const { items } = answer(await client.GET('/attack/techniques'));
  return { items, byId: new Map(items.map((item) => [item.id, item])) };
}

/** The catalog once it has been read (a failed read is tried again by the next page that asks). */
export function useTechniqueNames(): TechniqueNames {
  const [names, setNames] = useState<TechniqueNames>(NONE);
  useEffect(() => {
    let shown = true;
    if (!reading) {
      reading = read().catch(() => {
        reading = null;
        return NONE;
      });
    }
    reading.then((answered) => {
      if (shown) setNames(answered);
    });
    return () => {
      shown = false;
    };
  }, []);
  return names;
}

/** `PowerShell (execution)`, `Scripting (deprecated)`: a technique's name with its tactics, for a title or a hint. */
export function techniqueWords(technique: Technique): string {
  const about = technique.deprecated ? ['deprecated'] : technique.tactics.map((tactic) => tactic.replace(/-/g, ' '));
  return about.length > 0 ? `${technique.name} (${about.join(', ')})` : technique.name;
}
