/**
 * The canvas's "Add a step" form: an id, an action from the registry (`GET /actions`, the
 * implemented ones) and the steps it needs; the new step is appended to the YAML below the
 * lowest step drawn (draft.ts `withStep`), so it shows on the canvas at once.
 */
import { useState } from 'react';
import { answer, client } from '../api.ts';
import type { GraphStep } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { ErrorNote } from '../ui.tsx';
import type { NewStep } from './draft.ts';

/** The DSL's step id (domain/runbooks/document.ts). */
const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function AddStep({ steps, onAdd, disabled }: { steps: GraphStep[]; onAdd: (step: NewStep) => void; disabled: boolean }) {
  const actions = useResource(async () => answer(await client.GET('/actions')), []);
  const names = (actions.data ?? []).filter((action) => action.implemented).map((action) => action.name);
  const [id, setId] = useState('');
  const [action, setAction] = useState('');
  const [needs, setNeeds] = useState<string[]>([]);
  const chosenAction = action || names[0] || '';
  const taken = steps.some((step) => step.id === id);
  const problem = id === '' ? null : !STEP_ID.test(id) ? 'An id is 1 to 64 letters, digits, - and _.' : taken ? `A step is already called ${id}.` : null;

  const add = () => {
    const lowest = Math.max(0, ...steps.map((step) => step.ui?.y ?? 0));
    onAdd({
      id,
      action: chosenAction,
      needs: needs.filter((need) => steps.some((step) => step.id === need)),
      ui: { x: 0, y: steps.length === 0 ? 0 : lowest + 140 },
    });
    setId('');
    setNeeds([]);
  };

  return (
    <form
      className="add-step"
      aria-label="Add a step"
      onSubmit={(event) => {
        event.preventDefault();
        if (!problem && id !== '' && chosenAction !== '') add();
      }}
    >
      <label>
        Step id
        <input value={id} onChange={(event) => setId(event.target.value.trim())} aria-invalid={problem !== null} disabled={disabled} />
      </label>
      <label>
        Action
        <select value={chosenAction} onChange={(event) => setAction(event.target.value)} disabled={disabled}>
          {names.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      {steps.length > 0 && (
        <fieldset>
          <legend>Needs</legend>
          {steps.map((step) => (
            <label key={step.id} className="check">
              <input
                type="checkbox"
                checked={needs.includes(step.id)}
                disabled={disabled}
                onChange={(event) => setNeeds(event.target.checked ? [...needs, step.id] : needs.filter((need) => need !== step.id))}
              />
              {step.id}
            </label>
          ))}
        </fieldset>
      )}
      <button type="submit" disabled={disabled || id === '' || problem !== null || chosenAction === ''}>
        Add the step
      </button>
      {problem && <p className="error">{problem}</p>}
      <ErrorNote error={actions.error} />
    </form>
  );
}
