/** Enabling or disabling a custom action (`POST /custom-actions/<id>/enable`, `/disable`): a disabled one cannot start in a run. */
import { type Action, useAction } from '../action.ts';
import { answer, client } from '../api.ts';

export function useEnableToggle(action: { id: string; enabled: boolean }, onChanged: () => void): Action & { flip: () => Promise<void> } {
  const toggle = useAction();
  const params = { params: { path: { id: action.id } } };
  const flip = () =>
    toggle.run(
      async () => answer(action.enabled ? await client.POST('/custom-actions/{id}/disable', params) : await client.POST('/custom-actions/{id}/enable', params)),
      onChanged,
    );
  return { ...toggle, flip };
}
