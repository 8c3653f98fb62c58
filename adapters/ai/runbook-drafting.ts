/**
 * Drafting a runbook with AI (SPEC.md "AI authoring (proposals only)": `POST
 * /ai/runbook-drafts`): ask the provider through the AI call path, give state-changing
 * steps approval blocks, validate the result like `POST /runbooks/validate`, and diff it
 * against `base_yaml`. Nothing is saved: no runbook, run, approval or effect changes.
 *
 * The prompt carries only the description and the names of the actions a step may use
 * (custom actions included); `base_yaml` is never sent, it is only the diff's left side.
 * A draft naming an action the registry does not know is refused `ai_draft_unknown_action`
 * with `details.unknown_actions`; one failing validation `ai_draft_invalid_runbook` with
 * `details.errors` (`[{loc, msg}]`, as the validate endpoint answers). Both refusals are
 * the call's `refusal_code` in its one `ai.invocation` row.
 */
import { createTwoFilesPatch } from 'diff';
import type { AiRefusal } from '../../domain/ai/gate.ts';
import { aiFeatureClasses } from '../../domain/ai/gate.ts';
import {
  draftBoundsProblem,
  draftOutputSchema,
  draftPrompt,
  gateStateChangingSteps,
  type DraftOutput,
  type GatedDraft,
} from '../../domain/ai/runbook-draft.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { RunbookError } from '../../domain/runbooks/model.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';
import type { AiAuditRef, AiInvoker } from './invoke.ts';

/** Risks of an action that changes state: a drafted step using one gets an approval block. */
const STATE_CHANGING_RISKS: ReadonlySet<string> = new Set(['write', 'arbitrary']);

/** The proposal of SPEC.md: the runbook as drafted and gated, and its diff against `base_yaml`. */
export type DraftProposal = {
  slug: string;
  name: string;
  yaml_text: string;
  summary: string;
  notes: string[];
  actions_used: string[];
  approval_steps: string[];
  diff: string;
};

/** A refusal answered 200: the draft's own (`details` says why), or null when a proposal came. */
export type DraftRefusal = AiRefusal & { details: { unknown_actions: string[] } | { errors: RunbookError[] } };

/**
 * What a draft came to: 200 with a proposal or the draft's own refusal (and the call's
 * audit row), or the AI path's refusal (422 at the route); `position` is the audit row's.
 */
export type DraftResult =
  | { ok: true; proposal: DraftProposal | null; refusal: DraftRefusal | null; audit: AiAuditRef; position: number }
  | { ok: false; refusal: AiRefusal; position: number };

export type RunbookDrafting = ReturnType<typeof createRunbookDrafting>;

export function createRunbookDrafting(deps: {
  ai: AiInvoker;
  actions: Pick<ActionRegistry, 'entries' | 'isKnownAction' | 'riskOf' | 'stepProblem'>;
  runbooks: { validate: (yamlText: string) => RunbookError[] };
}) {
  /** The names a drafted step may use: every action a runbook step may name in this install. */
  const usableActions = () =>
    deps.actions
      .entries()
      .map((e) => e.name)
      .filter((name) => deps.actions.stepProblem(name) === null);

  /** The draft's own refusal of a gated answer, or null when it validates. */
  const refusalOf = (gated: GatedDraft): DraftRefusal | null => {
    const unknown = gated.actions_used.filter((a) => !deps.actions.isKnownAction(a));
    if (unknown.length > 0) {
      return {
        code: 'ai_draft_unknown_action',
        message: `the draft uses actions this install does not have: ${unknown.join(', ')}`,
        details: { unknown_actions: unknown },
      };
    }
    const errors = deps.runbooks.validate(gated.yaml_text);
    if (errors.length > 0) return { code: 'ai_draft_invalid_runbook', message: 'the drafted runbook does not validate', details: { errors } };
    return null;
  };

  return {
    /** Drafts a runbook for `actor` from `description`; `baseYaml` is the diff's left side. Throws only when the audit row cannot be appended. */
    async draft(description: string, baseYaml: string | null, actor: AuditActor): Promise<DraftResult> {
      const { system, prompt } = draftPrompt(description, usableActions());
      let judged: { output: DraftOutput; gated: GatedDraft; refusal: DraftRefusal | null } | null = null;
      const answer = await deps.ai.invoke({
        feature: 'runbook_draft',
        classes: aiFeatureClasses.runbook_draft,
        actor,
        target: null,
        team: null,
        system,
        prompt,
        output: draftOutputSchema,
        schemaName: 'runbook_draft',
        accept: (output) => {
          const bounds = draftBoundsProblem(output);
          if (bounds !== null) return { code: 'ai_structured_output_invalid', message: `the AI answer is out of bounds: ${bounds}` };
          const gated = gateStateChangingSteps(output.yaml_text, (action) => STATE_CHANGING_RISKS.has(deps.actions.riskOf(action) ?? ''));
          judged = { output, gated, refusal: refusalOf(gated) };
          return judged.refusal;
        },
      });
      const seen = judged as { output: DraftOutput; gated: GatedDraft; refusal: DraftRefusal | null } | null;
      if (seen?.refusal) return { ok: true, proposal: null, refusal: seen.refusal, audit: answer.audit, position: answer.position };
      if (!answer.ok) return { ok: false, refusal: answer.refusal, position: answer.position };
      if (seen === null) throw new Error('an accepted draft was not judged');
      const { output, gated } = seen;
      const slug = gated.slug ?? '';
      const proposal: DraftProposal = {
        slug,
        name: gated.name ?? slug,
        yaml_text: gated.yaml_text,
        summary: output.summary.trim(),
        notes: output.notes,
        actions_used: gated.actions_used,
        approval_steps: gated.approval_steps,
        diff: createTwoFilesPatch(baseYaml === null ? '/dev/null' : `a/${slug}.yml`, `b/${slug}.yml`, baseYaml ?? '', gated.yaml_text),
      };
      return { ok: true, proposal, refusal: null, audit: answer.audit, position: answer.position };
    },
  };
}
