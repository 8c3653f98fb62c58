/**
 * Custom action commands (SPEC.md "Custom action (operator-authored)"; issue 21). Ids,
 * the time and the facts about the author come in with the command, so deciding is pure:
 * `author.globalAdmin` is whether the author holds the `admin` permission through a grant
 * with no team (adapters/http/custom-actions.routes.ts), and `nameHolder` is the id of
 * the action that holds the name's claim stream, read by the command adapter.
 */
import type { CustomActionSpec } from './spec.ts';

/** Who authors the change: the person (`by`: email, else user id) and whether they are a global administrator. */
export type CustomActionAuthor = { by: string | null; globalAdmin: boolean };

/** Where a spec comes from: the API, or (later, issue 21) an integration pack, which may declare managed effect types. */
export type CustomActionSource = 'api' | 'pack';

export type CustomActionCommand =
  | {
      type: 'create';
      customActionId: string;
      spec: CustomActionSpec;
      /** The id of the action whose claim holds `spec.name`, or null when the name is free. */
      nameHolder: string | null;
      acknowledgeDanger: boolean;
      source: CustomActionSource;
      author: CustomActionAuthor;
      now: string;
    }
  | {
      type: 'update';
      customActionId: string;
      spec: CustomActionSpec;
      acknowledgeDanger: boolean;
      source: CustomActionSource;
      author: CustomActionAuthor;
      now: string;
    }
  | { type: 'disable'; customActionId: string; author: CustomActionAuthor; now: string }
  | { type: 'enable'; customActionId: string; author: CustomActionAuthor; now: string };
