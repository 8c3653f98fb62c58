/**
 * The case templates of this install (SPEC.md "Case" `template_id`): YAML files in
 * `SVC_CASE_TEMPLATES_DIR` (`*.yml`, `*.yaml`), read once at start. A bad file or a
 * second file with an id already taken is reported with its file name and field path
 * and left out; it never stops the service.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaseTemplate, type CaseTemplate, type TemplateError } from '../../domain/case-templates/template.ts';

export type CaseTemplateCatalog = {
  /** Every template, by id. */
  list: () => CaseTemplate[];
  get: (id: string) => CaseTemplate | undefined;
};

export type RefusedTemplateFile = { file: string; errors: TemplateError[] };

/** Reads `dir` (a missing directory holds no templates); returns the catalog and the refused files. */
export function loadCaseTemplates(dir: string): { catalog: CaseTemplateCatalog; refused: RefusedTemplateFile[] } {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => /\.ya?ml$/i.test(f))
      .sort();
  } catch {
    files = [];
  }
  const byId = new Map<string, CaseTemplate>();
  const origin = new Map<string, string>();
  const refused: RefusedTemplateFile[] = [];
  for (const file of files) {
    const parsed = parseCaseTemplate(readFileSync(join(dir, file), 'utf8'));
    if (!parsed.ok) {
      refused.push({ file, errors: parsed.errors });
      continue;
    }
    const first = origin.get(parsed.template.id);
    if (first !== undefined) {
      refused.push({ file, errors: [{ loc: ['id'], msg: `template id '${parsed.template.id}' is already defined in ${first}` }] });
      continue;
    }
    byId.set(parsed.template.id, parsed.template);
    origin.set(parsed.template.id, file);
  }
  const sorted = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { catalog: { list: () => sorted, get: (id) => byId.get(id) }, refused };
}
