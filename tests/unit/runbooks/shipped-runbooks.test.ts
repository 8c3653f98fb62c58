/** Every runbook shipped in runbooks/ (loaded by `make run`) validates against the built-in action registry, so the README's first session starts clean. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinActions, createActionRegistry } from '../../../adapters/action-registry/registry.ts';
import { responseActions } from '../../../adapters/effects/response-actions.ts';
import { createTemplateEngine } from '../../../adapters/templates/liquid.ts';
import { parseRunbook } from '../../../domain/runbooks/parse.ts';

const dir = join(import.meta.dirname, '../../../runbooks');
const unused = () => {
  throw new Error('not called while validating');
};

describe('shipped runbooks', () => {
  const registry = createActionRegistry([
    ...builtinActions(async () => new Response(null)),
    ...responseActions({
      registry: () => registry,
      policy: unused,
      effects: { decide: unused, load: unused, read: unused },
      reverser: unused,
      resolveConnection: unused,
      caseSeverity: unused,
      openEffects: unused,
      waitFor: unused,
      now: () => new Date(),
    }),
  ]);
  const templates = createTemplateEngine();
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'));

  it.each(files)('%s validates', (file) => {
    const parsed = parseRunbook(readFileSync(join(dir, file), 'utf8'), {
      actionProblem: (name) => registry.actionProblem(name),
      checkInput: registry.checkInput,
      checkTemplate: templates.checkTemplate,
      checkCondition: templates.checkCondition,
    });
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  });

  it('ships the containment runbook the README uses', () => {
    expect(files).toContain('contain-source-ip.yml');
  });
});
